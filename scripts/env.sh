# Shared settings of the scripts, sourced from the clone's root. The build
# directory lives outside the clone, so a new clone in the same place starts
# warm (a clean debug build of the AWS SDK takes minutes on 2 cores), and there
# is one per clone: cargo names a workspace's own crates by their path inside
# the workspace, so two clones sharing one build directory overwrite each
# other's artifacts and one builds against the other's sources.
clone_id=$(printf '%s' "$PWD" | cksum | cut -d' ' -f1)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/eksgpu/target-$clone_id}"
unset clone_id
# These machines export a TF_CLI_CONFIG_FILE that does not exist; the harness
# writes its own per working directory.
unset TF_CLI_CONFIG_FILE
if ! command -v cargo >/dev/null; then
  echo "cargo is required: install Rust (https://rustup.rs)" >&2
  exit 1
fi
if ! command -v python3 >/dev/null; then
  echo "python3 (with venv) is required for the AWS emulator" >&2
  exit 1
fi
if ! command -v terraform >/dev/null && [ -z "${TF_ACC_TERRAFORM_PATH:-}" ]; then
  echo "terraform is required on PATH (or set TF_ACC_TERRAFORM_PATH)" >&2
  exit 1
fi
