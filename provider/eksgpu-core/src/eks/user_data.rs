//! User data of a node group's launch template: what EKS merges with its own bootstrap (EKS user
//! guide, Customize managed nodes with launch templates, "Amazon EC2 user data",
//! https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html): for Amazon Linux AMIs a
//! MIME multi-part document (AL2023 parts of type `application/node.eks.aws` hold nodeadm
//! `NodeConfig`s, `text/x-shellscript` parts scripts), for Bottlerocket TOML settings. A
//! `NodeConfig` or a script written alone is put in a one-part MIME document here, as eksctl's
//! `overrideBootstrapCommand` and terraform-aws-modules/eks's `cloudinit_pre_nodeadm` do.

use base64::Engine as _;

/// The MIME boundary of documents the provider wraps (Karpenter's and the EKS guides').
pub const BOUNDARY: &str = "//";

/// The content type of a nodeadm `NodeConfig` part (awslabs/amazon-eks-ami nodeadm docs).
pub const NODE_CONFIG: &str = "application/node.eks.aws";
/// The content type of a script part.
pub const SHELL: &str = "text/x-shellscript; charset=\"us-ascii\"";

/// What a node group's AMI type reads as user data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `BOTTLEROCKET_*`: TOML settings.
    Toml,
    /// `AL2023_*`: MIME multi-part with NodeConfigs and scripts.
    Nodeadm,
    /// `AL2_*`: MIME multi-part with scripts.
    Al2,
}

pub fn format_of(ami_type: &str) -> Format {
    if ami_type.starts_with("BOTTLEROCKET") {
        Format::Toml
    } else if ami_type.starts_with("AL2023") {
        Format::Nodeadm
    } else {
        Format::Al2
    }
}

/// Whether the text is already a MIME document: its first header, in either order of the two a
/// multi-part document starts with, is `MIME-Version` or a `multipart/` `Content-Type` (RFC 2045
/// puts no order on headers; hashicorp/terraform-provider-cloudinit, which terraform-aws-modules/eks
/// renders its user data with, writes `Content-Type` first: internal/provider/cloudinit_config.go
/// `renderPartsToWriter`).
pub fn is_mime(text: &str) -> bool {
    let first = text.trim_start().to_ascii_lowercase();
    first.starts_with("mime-version:")
        || first
            .strip_prefix("content-type:")
            .is_some_and(|v| v.trim_start().starts_with("multipart/"))
}

/// Whether a document is a nodeadm `NodeConfig` (its `kind`).
pub fn is_node_config(text: &str) -> bool {
    text.lines().any(|l| l.trim() == "kind: NodeConfig")
}

/// The user data as the template carries it: Bottlerocket TOML and MIME documents as written; a
/// lone `NodeConfig` or script wrapped in a one-part MIME document.
pub fn rendered(text: &str, ami_type: &str) -> String {
    if format_of(ami_type) == Format::Toml || is_mime(text) {
        return text.to_owned();
    }
    let content_type = if is_node_config(text) { NODE_CONFIG } else { SHELL };
    let body = if text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    };
    format!(
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"{BOUNDARY}\"\n\n--{BOUNDARY}\nContent-Type: {content_type}\n\n{body}\n--{BOUNDARY}--\n"
    )
}

/// The text read back from a rendered document: what `rendered` wrapped, unwrapped again when it
/// is one part the provider's wrapping made (so a lone `NodeConfig` reads back as written).
pub fn unwrapped(live: &str, written: Option<&str>, ami_type: &str) -> String {
    match written {
        Some(w) if rendered(w, ami_type) == live => w.to_owned(),
        _ => live.to_owned(),
    }
}

/// One part of a MIME multi-part document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub content_type: String,
    pub body: String,
}

/// The parts of a MIME multi-part document (RFC 2046 boundaries, headers up to the first empty
/// line); a document that is not MIME is one part without a content type.
pub fn parts(text: &str) -> Vec<Part> {
    if !is_mime(text) {
        return vec![Part {
            content_type: String::new(),
            body: text.to_owned(),
        }];
    }
    let boundary = text.lines().take_while(|l| !l.trim().is_empty()).find_map(|l| {
        let lower = l.to_ascii_lowercase();
        let at = lower.find("boundary=")?;
        Some(l[at + "boundary=".len()..].trim().trim_matches('"').to_owned())
    });
    let Some(boundary) = boundary else {
        return Vec::new();
    };
    let delimiter = format!("--{boundary}");
    let mut out = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        if line.trim_end() == delimiter || line.trim_end() == format!("{delimiter}--") {
            if let Some(lines) = current.take() {
                out.push(part(&lines));
            }
            if line.trim_end() == delimiter {
                current = Some(Vec::new());
            }
            continue;
        }
        if let Some(lines) = current.as_mut() {
            lines.push(line);
        }
    }
    if let Some(lines) = current {
        out.push(part(&lines));
    }
    out
}

fn part(lines: &[&str]) -> Part {
    let split = lines.iter().position(|l| l.trim().is_empty()).unwrap_or(lines.len());
    let content_type = lines[..split]
        .iter()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_owned())
        })
        .unwrap_or_default();
    let body = lines.get(split + 1..).unwrap_or_default().join("\n");
    Part {
        content_type,
        body: body.trim_end().to_owned(),
    }
}

/// Base64 of the text, as EC2 takes `UserData`.
pub fn base64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
}

/// The text of base64 `UserData` as EC2 returns it (`None`: not base64 of UTF-8).
pub fn from_base64(encoded: &str) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RAID0: &str = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  instance:\n    localStorage:\n      strategy: RAID0\n";

    #[test]
    fn a_lone_node_config_is_wrapped_in_one_part_and_unwrapped_again() {
        let doc = rendered(RAID0, "AL2023_x86_64_NVIDIA");
        assert!(is_mime(&doc));
        let p = parts(&doc);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].content_type, NODE_CONFIG);
        assert_eq!(p[0].body, RAID0.trim_end());
        assert_eq!(unwrapped(&doc, Some(RAID0), "AL2023_x86_64_NVIDIA"), RAID0);
        assert_eq!(from_base64(&base64(&doc)).as_deref(), Some(doc.as_str()));
    }

    #[test]
    fn scripts_are_shell_parts_and_toml_stays_as_written() {
        let p = parts(&rendered("yum install -y jq\n", "AL2_x86_64_GPU"));
        assert_eq!(p[0].content_type, SHELL);
        let toml = "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\n";
        assert_eq!(rendered(toml, "BOTTLEROCKET_x86_64_NVIDIA"), toml);
    }

    /// terraform-aws-modules/eks user data: the cloudinit provider's document, `Content-Type`
    /// first and CRLF line ends, is MIME already: kept as written, its parts read.
    #[test]
    fn a_cloudinit_document_is_mime_as_written() {
        let doc = "Content-Type: multipart/mixed; boundary=\"MIMEBOUNDARY\"\nMIME-Version: 1.0\r\n\r\n--MIMEBOUNDARY\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: application/node.eks.aws\r\nMime-Version: 1.0\r\n\r\nkind: NodeConfig\n\r\n--MIMEBOUNDARY--\r\n";
        assert!(is_mime(doc));
        assert_eq!(rendered(doc, "AL2023_x86_64_NVIDIA"), doc);
        let p = parts(doc);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].content_type, "application/node.eks.aws");
        assert_eq!(p[0].body.trim_end(), "kind: NodeConfig");
        assert!(!is_mime("Content-Type: text/plain\n\necho"));
    }

    #[test]
    fn a_written_mime_document_keeps_its_parts() {
        let doc = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==B==\"\n\n--==B==\nContent-Type: text/x-shellscript\n\necho one\n\n--==B==\nContent-Type: application/node.eks.aws\n\nkind: NodeConfig\n--==B==--\n";
        assert_eq!(rendered(doc, "AL2023_x86_64_NVIDIA"), doc);
        let p = parts(doc);
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].content_type.as_str(), p[0].body.as_str()),
            ("text/x-shellscript", "echo one")
        );
        assert_eq!(p[1].content_type, "application/node.eks.aws");
    }
}
