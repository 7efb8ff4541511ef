//! User data as EC2 takes it: at most 16 KB before base64 (EKSGPU143), and on Bottlerocket
//! TOML that parses (EKSGPU144), on a Karpenter node class and on a node group's launch template.

use crate::eks::user_data::{self, Format};
use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// EC2 user data: "limited to 16 KB, in raw form, before it is base64-encoded" (Amazon EC2 User
/// Guide, Run commands when you launch an EC2 instance with user data input,
/// https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/user-data.html).
pub(super) const USER_DATA_MAX_BYTES: usize = 16 * 1024;

/// The pool's user data, where it is written, what the launch template carries of it (the
/// provider's MIME wrapping for node groups; Karpenter adds its own to a node class's) and
/// whether the AMI reads TOML.
fn written(pool: &Pool, at: &At<'_>) -> Option<(Vec<Step>, String, bool)> {
    match pool.capacity {
        Capacity::Karpenter => {
            let u = pool.node_class.as_ref()?.user_data.as_deref()?;
            Some((
                at(&[Step::Attr("node_class"), Step::Attr("user_data")]),
                u.to_owned(),
                pool.bottlerocket(),
            ))
        }
        Capacity::ManagedNodeGroup => {
            let m = pool.managed_node_group.as_ref()?;
            let u = m.user_data.as_deref()?;
            let ami_type = m
                .ami_type
                .clone()
                .unwrap_or_else(|| crate::eks::default_ami_type(pool).to_owned());
            Some((
                at(&[Step::Attr("managed_node_group"), Step::Attr("user_data")]),
                user_data::rendered(u, &ami_type),
                user_data::format_of(&ami_type) == Format::Toml,
            ))
        }
        Capacity::AutoMode | Capacity::Hybrid => None,
    }
}

pub(super) fn check(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some((path, rendered, toml)) = written(pool, at) else {
        return;
    };
    if rendered.len() > USER_DATA_MAX_BYTES {
        out.push(Violation::new(
            Code::EKSGPU143,
            path.clone(),
            format!(
                "Pool {:?}'s user data is {} bytes before base64 (and Karpenter or EKS add their own); EC2 takes at \
                 most {USER_DATA_MAX_BYTES} (16 KB).",
                pool.name,
                rendered.len()
            ),
        ));
    }
    // MIME documents, NodeConfigs and scripts on Bottlerocket are EKSGPU158's on node groups.
    let other_format = user_data::is_mime(&rendered)
        || user_data::is_node_config(&rendered)
        || rendered.trim_start().starts_with("#!");
    if toml
        && !(pool.capacity == Capacity::ManagedNodeGroup && other_format)
        && let Err(e) = toml_edit::Document::parse(rendered.as_str())
    {
        let why = e.to_string();
        let first = why
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("it does not parse");
        out.push(Violation::new(
            Code::EKSGPU144,
            path,
            format!(
                "Pool {:?} runs Bottlerocket, which reads user data as TOML settings, and this is not TOML ({}).",
                pool.name,
                first.trim()
            ),
        ));
    }
}
