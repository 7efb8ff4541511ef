//! The one place where library errors become diagnostics users read.

use eksgpu_cloud::AwsError;
use eksgpu_tfplugin::{AttributePath, Diagnostic};

/// An AWS call failed while working on the attribute at `path`.
pub(crate) fn aws_failed(err: &AwsError, path: AttributePath) -> Diagnostic {
    let hint = if err.is_access_denied() {
        " The credentials in use lack a permission this provider needs: https://registry.terraform.io/providers/eksgpu/eksgpu/latest/docs/guides/iam \
         lists every action it calls as a policy you can attach."
    } else {
        " Check the provider's region, credentials and endpoints; AWS throttling and server errors \
         were already retried."
    };
    Diagnostic::error(format!("AWS call {} failed", err.operation), format!("{err}.{hint}")).at(path)
}

/// Waiting for an AWS operation ended without success.
pub(crate) fn wait_failed(err: &eksgpu_cloud::aws::wait::WaitError, what: &str, path: AttributePath) -> Diagnostic {
    use eksgpu_cloud::aws::wait::WaitError as W;
    let (summary, hint) = match err {
        W::TimedOut { .. } => (
            "Timed out waiting for AWS",
            "The operation goes on in AWS and the pool stays in state: run apply again to keep waiting, or raise \
             the strategy's `timeouts`.",
        ),
        W::Cancelled { .. } => (
            "Operation cancelled",
            "Terraform asked the provider to stop. The operation goes on in AWS and the pool stays in state: \
             run apply again to finish.",
        ),
        W::Failed { .. } => (
            "AWS operation failed",
            "Fix what EKS reports (capacity, subnets, IAM role), then apply again.",
        ),
        W::Aws(e) => return aws_failed(e, path),
    };
    Diagnostic::error(summary, format!("Failed {what}: {err}. {hint}")).at(path)
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

/// A Kubernetes API call failed while `what`.
pub(crate) fn kube_failed(err: &eksgpu_cloud::kube::KubeError, what: &str, path: AttributePath) -> Diagnostic {
    use eksgpu_cloud::kube::KubeError as K;
    let (summary, hint) = match err {
        K::KindNotInstalled { .. } => ("Kubernetes kind not installed", "Install it, then apply again."),
        K::Conflict { .. } => (
            "Field owned by another manager",
            "Someone changed a field this provider manages. Set force_conflicts = true to take it back, or adopt \
             the change in your configuration.",
        ),
        K::Invalid { .. } => (
            "Object rejected by the API server",
            "This is a bug if the plan passed; please report it.",
        ),
        K::Unauthorized { .. } => (
            "Not authorized by the cluster",
            "The identity Terraform runs as needs access to the cluster: an EKS access entry (or the kubernetes block's token).",
        ),
        K::Aws(e) => return aws_failed(e, path),
        _ => (
            "Kubernetes API call failed",
            "Check that the cluster is reachable from where Terraform runs.",
        ),
    };
    Diagnostic::error(summary, format!("Failed {what}: {err}. {hint}")).at(path)
}

/// A rule of the catalogue fired.
pub(crate) fn violation(v: &eksgpu_core::rules::Violation) -> Diagnostic {
    use eksgpu_core::rules::{Severity, Step};
    let mut path = AttributePath::root();
    for step in &v.path {
        path = match step {
            Step::Attr(a) => path.attribute(*a),
            Step::Index(i) => path.index(*i),
            Step::Key(k) => path.key(k.clone()),
        };
    }
    let summary = format!("{}: {}", v.code, v.summary);
    let d = match v.severity {
        Severity::Error => Diagnostic::error(summary, v.detail.clone()),
        Severity::Warning => Diagnostic::warning(summary, v.detail.clone()),
    };
    d.at(path)
}
