//! The one place where library errors become diagnostics users read.

use eksgpu_cloud::{AwsError, AwsFailure};
use eksgpu_tfplugin::{AttributePath, Diagnostic};

/// An AWS call failed while working on the attribute at `path`.
pub(crate) fn aws_failed(err: &AwsError, path: AttributePath) -> Diagnostic {
    aws_diagnostic(err, None, path)
}

/// The diagnostic of an AWS failure, saying what the provider was doing when it knows.
fn aws_diagnostic(err: &AwsError, what: Option<&str>, path: AttributePath) -> Diagnostic {
    let doing = what.map(|w| format!("Failed {w}: ")).unwrap_or_default();
    let op = err.operation;
    let (summary, detail) = match err.failure.as_ref() {
        AwsFailure::MissingRegion => (
            "No AWS region configured".to_owned(),
            format!(
                "{doing}{op} needs an AWS region and none is set. Set `region` in the provider block, or \
                 AWS_REGION (or a region in the AWS profile in use)."
            ),
        ),
        AwsFailure::Credentials => (
            "No AWS credentials".to_owned(),
            format!(
                "{doing}{op} found no usable AWS credentials ({}). Provide them as the AWS CLI reads them: \
                 environment variables, a profile (`profile`), SSO, web identity or an instance role.",
                err.message
            ),
        ),
        AwsFailure::Unreachable { endpoint, cause } => {
            let at = endpoint.as_deref().unwrap_or("the AWS endpoint");
            (
                format!("Cannot reach AWS at {at}"),
                format!(
                    "{doing}{op}: {cause}. {} The endpoint comes from the provider's `endpoints` block, \
                     AWS_ENDPOINT_URL, or the region.",
                    cause.hint()
                ),
            )
        }
        AwsFailure::Service if err.is_access_denied() => (
            format!("AWS call {op} failed"),
            format!(
                "{doing}{err}. The credentials in use lack a permission this provider needs: \
                 https://registry.terraform.io/providers/eksgpu/eksgpu/latest/docs/guides/iam lists every action \
                 it calls as a policy you can attach."
            ),
        ),
        AwsFailure::Service | AwsFailure::Other => (
            format!("AWS call {op} failed"),
            format!(
                "{doing}{err}. Check the provider's region, credentials and endpoints; AWS throttling and server \
                 errors were already retried."
            ),
        ),
    };
    Diagnostic::error(summary, detail).at(path)
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
    let (summary, hint): (String, &str) = match err {
        K::KindNotInstalled { .. } => ("Kubernetes kind not installed".into(), "Install it, then apply again."),
        K::Conflict { .. } => (
            "Field owned by another manager".into(),
            "Someone changed a field this provider manages. Set force_conflicts = true to take it back, or adopt \
             the change in your configuration.",
        ),
        K::Invalid { .. } => (
            "Object rejected by the API server".into(),
            "This is a bug if the plan passed; please report it.",
        ),
        K::Unauthorized { code: 401, .. } => (
            "Cluster did not accept the provider's credentials".into(),
            "Check that identity: a `kubernetes.token` (or the token `kubernetes.exec` prints) must be valid for this \
             cluster and unexpired; an EKS token needs valid AWS credentials, `cluster_name` naming this cluster, \
             and a correct clock.",
        ),
        K::Unauthorized { .. } => (
            "Cluster denied access".into(),
            "The cluster knows that identity but does not allow this: give it an EKS access entry with an access \
             policy that covers these objects (or RBAC permissions for a token's service account).",
        ),
        K::Unreachable { cause, .. } => (unreachable_summary(cause).into(), cause.hint()),
        K::Cancelled { .. } => return cancelled_call(what, path),
        K::Exec(_) => (
            "Kubernetes credential command failed".into(),
            "Fix the provider's kubernetes.exec block (api_version, command, args, env) or what the command needs \
             (a login, a profile): run it by hand and check that it prints an ExecCredential.",
        ),
        K::Config(_) => (
            "Invalid cluster access settings".into(),
            "Fix the provider's kubernetes block (or the kubeconfig it names).",
        ),
        K::InvalidName { .. } => (
            "Invalid Kubernetes object name".into(),
            "Use a lowercase RFC 1123 name.",
        ),
        K::Aws(e) => return aws_diagnostic(e, Some(what), path),
        K::Api { .. } | K::Transport(_) => (
            "Kubernetes API call failed".into(),
            "Check the API server's message; apply again once it is resolved.",
        ),
    };
    Diagnostic::error(summary, format!("Failed {what}: {err}. {hint}")).at(path)
}

fn unreachable_summary(cause: &eksgpu_cloud::net::Unreachable) -> &'static str {
    use eksgpu_cloud::net::Unreachable as U;
    match cause {
        U::Refused => "Cluster API refused the connection",
        U::Dns => "Cluster API host name does not resolve",
        U::UnknownCa | U::HostnameMismatch | U::Tls(_) => "TLS verification of the cluster API failed",
        U::Timeout => "Cluster API did not answer in time",
        U::Other(_) => "Cannot reach the cluster API",
    }
}

/// A cluster call abandoned because Terraform asked the provider to stop.
fn cancelled_call(what: &str, path: AttributePath) -> Diagnostic {
    Diagnostic::error(
        "Operation cancelled",
        format!(
            "Terraform asked the provider to stop (Ctrl-C) while {what}; the call was abandoned. Objects applied \
             before the stop are left as they are; run apply again to finish."
        ),
    )
    .at(path)
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

#[cfg(test)]
mod tests;
