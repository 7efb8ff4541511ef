# Shared settings of the scripts. The build directory lives outside the clone
# so rebuilds stay warm across clones on one machine (a clean debug build of
# the AWS SDK takes minutes on 2 cores).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/eksgpu/target}"
# These machines export a TF_CLI_CONFIG_FILE that does not exist; the harness
# writes its own per working directory.
unset TF_CLI_CONFIG_FILE
if ! command -v cargo >/dev/null; then
  echo "cargo is required: install Rust (https://rustup.rs)" >&2
  exit 1
fi
if ! command -v python3 >/dev/null; then
  echo "python3 (with venv) is required for the AWS emulator and Terraform 1.0.3" >&2
  exit 1
fi
if ! command -v terraform >/dev/null && [ -z "${TF_ACC_TERRAFORM_PATH:-}" ]; then
  echo "terraform is required on PATH (or set TF_ACC_TERRAFORM_PATH)" >&2
  exit 1
fi
