//! The one place where library errors become diagnostics users read.

use eksgpu_cloud::AwsError;
use eksgpu_tfplugin::{AttributePath, Diagnostic};

/// An AWS call failed while working on the attribute at `path`.
pub(crate) fn aws_failed(err: &AwsError, path: AttributePath) -> Diagnostic {
    let hint = if err.is_access_denied() {
        " The credentials in use lack a permission this provider needs: docs/iam.md lists every \
         action it calls as a policy you can attach."
    } else {
        " Check the provider's region, credentials and endpoints; AWS throttling and server errors \
         were already retried."
    };
    Diagnostic::error(format!("AWS call {} failed", err.operation), format!("{err}.{hint}")).at(path)
}

/// The provider was not configured before use: a Terraform protocol violation.
pub(crate) fn not_configured() -> Diagnostic {
    Diagnostic::error(
        "Provider not configured",
        "Terraform called the provider before ConfigureProvider. This is a bug; please report it \
         with the output of TF_LOG=DEBUG.",
    )
}

/// The operation was stopped by Terraform (Ctrl-C / StopProvider).
pub(crate) fn cancelled(what: &str) -> Diagnostic {
    Diagnostic::error(
        "Operation cancelled",
        format!("Terraform asked the provider to stop while it was {what}. Nothing was changed; run again to finish."),
    )
}
