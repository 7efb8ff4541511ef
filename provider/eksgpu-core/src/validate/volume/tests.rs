use regex::Regex;

use super::*;
use crate::validate::{crd_node, vendored_crd};

const SPEC: &str = "/properties/spec/properties";

fn ec2nodeclass() -> serde_json::Value {
    vendored_crd("karpenter.k8s.aws_ec2nodeclasses.yaml")
}

#[test]
fn volume_sizes_agree_with_the_crd_pattern() {
    let crd = ec2nodeclass();
    let node = crd_node(
        &crd,
        &format!("{SPEC}/blockDeviceMappings/items/properties/ebs/properties/volumeSize"),
    );
    let pattern = node["pattern"].as_str().unwrap().to_owned();
    let re = Regex::new(&pattern).unwrap();
    for unit in ["Gi", "G", "Ti", "T", "Mi", "", "gi"] {
        for n in (0..=100).chain([
            999, 1000, 9999, 10000, 49999, 50000, 58999, 59000, 59001, 63999, 64000, 64001,
        ]) {
            let s = format!("{n}{unit}");
            assert_eq!(
                ec2_node_class_volume_size(&s).is_ok(),
                re.is_match(&s),
                "{s} vs {pattern}"
            );
        }
    }
    for s in ["", "01Gi", "1.5Gi", "200Gi ", "+200Gi"] {
        assert_eq!(ec2_node_class_volume_size(s).is_ok(), re.is_match(s), "{s:?}");
    }
    // The pattern's empty alternatives: a bare unit matches it but is no size.
    for s in ["Ti", "T"] {
        assert!(re.is_match(s) && ec2_node_class_volume_size(s).is_err(), "{s}");
    }
    assert!(ec2_node_class_volume_size("200Gi").is_ok());
    assert!(ec2_node_class_volume_size("18Ti").is_err());
}

#[test]
fn sizes_the_issue_named_and_their_class() {
    for bad in ["200000Mi", "1.5Ti", "0.5T", "1e3Gi", "214748364800", "200gi", "59001Gi"] {
        assert!(ec2_node_class_volume_size(bad).is_err(), "{bad}");
    }
    // Karpenter's rounding: ceil(bytes / 2^30).
    assert_eq!(ec2_node_class_volume_gib("200Gi"), Some(200));
    assert_eq!(ec2_node_class_volume_gib("100G"), Some(94));
    assert_eq!(ec2_node_class_volume_gib("1T"), Some(932));
    assert_eq!(ec2_node_class_volume_gib("64T"), Some(59_605));
    assert_eq!(ec2_node_class_volume_gib("58Ti"), Some(59_392));
    assert_eq!(ec2_node_class_volume_gib("1.5Ti"), None);
}

fn fields(r: Result<(), FieldProblems>) -> Vec<&'static str> {
    r.err().unwrap_or_default().into_iter().map(|(f, _)| f).collect()
}

#[test]
fn iops_per_volume_type() {
    // gp3: 3000-80000, at most 500 per GiB above the 3000 baseline.
    assert!(ebs_volume("gp3", Some("200Gi"), Some(3_000), None).is_ok());
    assert!(ebs_volume("gp3", Some("1Gi"), Some(3_000), None).is_ok());
    assert!(ebs_volume("gp3", Some("160Gi"), Some(80_000), None).is_ok());
    assert_eq!(fields(ebs_volume("gp3", Some("200Gi"), Some(2_999), None)), ["iops"]);
    assert_eq!(fields(ebs_volume("gp3", Some("200Gi"), Some(80_001), None)), ["iops"]);
    assert_eq!(fields(ebs_volume("gp3", Some("159Gi"), Some(80_000), None)), ["iops"]);
    assert_eq!(fields(ebs_volume("gp3", Some("10Gi"), Some(5_001), None)), ["iops"]);
    assert!(ebs_volume("gp3", Some("10Gi"), Some(5_000), None).is_ok());
    // Types that take no IOPS.
    for t in ["gp2", "st1", "sc1", "standard"] {
        let size = if t == "standard" { "100Gi" } else { "500Gi" };
        assert!(ebs_volume(t, Some(size), None, None).is_ok(), "{t}");
        assert_eq!(fields(ebs_volume(t, Some(size), Some(3_000), None)), ["iops"], "{t}");
    }
    // io1 100-64000 at 50/GiB, io2 100-256000 at 1000/GiB; both need IOPS.
    assert!(ebs_volume("io1", Some("1280Gi"), Some(64_000), None).is_ok());
    assert_eq!(fields(ebs_volume("io1", Some("1279Gi"), Some(64_000), None)), ["iops"]);
    assert_eq!(fields(ebs_volume("io1", Some("2000Gi"), Some(64_001), None)), ["iops"]);
    assert_eq!(fields(ebs_volume("io1", Some("100Gi"), Some(99), None)), ["iops"]);
    assert!(ebs_volume("io2", Some("256Gi"), Some(256_000), None).is_ok());
    assert_eq!(fields(ebs_volume("io2", Some("255Gi"), Some(256_000), None)), ["iops"]);
    assert_eq!(fields(ebs_volume("io2", Some("300Gi"), Some(256_001), None)), ["iops"]);
    assert_eq!(fields(ebs_volume("io1", Some("100Gi"), None, None)), ["iops"]);
    assert_eq!(fields(ebs_volume("io2", Some("100Gi"), None, None)), ["iops"]);
}

#[test]
fn sizes_per_volume_type() {
    assert!(ebs_volume("gp3", Some("64Ti"), None, None).is_err()); // outside the CRD pattern (58Ti at most)
    assert!(ebs_volume("gp3", Some("58Ti"), None, None).is_ok()); // 59392 GiB ≤ 65536
    assert_eq!(fields(ebs_volume("gp2", Some("17Ti"), None, None)), ["size"]); // 17408 GiB > 16384
    assert!(ebs_volume("gp2", Some("16Ti"), None, None).is_ok());
    assert_eq!(fields(ebs_volume("io1", Some("3Gi"), Some(100), None)), ["size"]);
    assert_eq!(fields(ebs_volume("st1", Some("124Gi"), None, None)), ["size"]);
    assert!(ebs_volume("sc1", Some("125Gi"), None, None).is_ok());
    assert_eq!(fields(ebs_volume("standard", Some("1025Gi"), None, None)), ["size"]);
    // 1T is 932 GiB as Karpenter rounds it, within the 1024 of standard volumes.
    assert!(ebs_volume("standard", Some("1T"), None, None).is_ok());
    assert_eq!(fields(ebs_volume("gp3", Some("200000Mi"), None, None)), ["size"]);
    assert_eq!(fields(ebs_volume("gp4", Some("200Gi"), None, None)), ["volume_type"]);
}

#[test]
fn throughput_only_on_gp3() {
    assert!(ebs_volume("gp3", Some("200Gi"), None, Some(125)).is_ok());
    assert!(ebs_volume("gp3", Some("200Gi"), None, Some(750)).is_ok());
    assert_eq!(
        fields(ebs_volume("gp3", Some("200Gi"), None, Some(751))),
        ["throughput"]
    );
    assert!(ebs_volume("gp3", Some("200Gi"), Some(8_000), Some(2_000)).is_ok());
    assert_eq!(
        fields(ebs_volume("gp3", Some("200Gi"), Some(8_000), Some(2_001))),
        ["throughput"]
    );
    assert_eq!(
        fields(ebs_volume("gp3", Some("200Gi"), None, Some(124))),
        ["throughput"]
    );
    for t in ["gp2", "io1", "io2", "st1", "sc1", "standard"] {
        let iops = t.starts_with("io").then_some(3_000);
        let r = ebs_volume(t, Some("500Gi"), iops, Some(125));
        assert_eq!(fields(r), ["throughput"], "{t}");
    }
    // Every problem at once, each at its attribute.
    assert_eq!(
        fields(ebs_volume("gp2", Some("1.5Ti"), Some(3_000), Some(500))),
        ["size", "iops", "throughput"]
    );
}

#[test]
fn auto_mode_ephemeral_storage_ranges() {
    for ok in ["1Gi", "80Gi", "59000Gi", "64000G", "18Ti", "58Ti", "64T"] {
        assert!(auto_mode_ephemeral_storage_size(ok).is_ok(), "{ok}");
    }
    for bad in [
        "0Gi", "59001Gi", "64001G", "59Ti", "65T", "1.5Ti", "200000Mi", "Ti", "", "80gi",
    ] {
        let e = auto_mode_ephemeral_storage_size(bad).unwrap_err();
        assert!(e.source.contains("create-node-class"), "{e}");
    }
    assert!(auto_mode_ephemeral_storage(Some("160Gi"), Some(3_000), Some(125)).is_ok());
    assert!(auto_mode_ephemeral_storage(None, Some(16_000), Some(1_000)).is_ok());
    assert_eq!(fields(auto_mode_ephemeral_storage(None, Some(2_999), None)), ["iops"]);
    assert_eq!(fields(auto_mode_ephemeral_storage(None, Some(16_001), None)), ["iops"]);
    assert_eq!(
        fields(auto_mode_ephemeral_storage(None, None, Some(124))),
        ["throughput"]
    );
    assert_eq!(
        fields(auto_mode_ephemeral_storage(None, None, Some(1_001))),
        ["throughput"]
    );
    assert_eq!(
        fields(auto_mode_ephemeral_storage(Some("1.5Ti"), Some(1), Some(1))),
        ["size", "iops", "throughput"]
    );
}

#[test]
fn device_names_are_the_ones_ec2_takes_on_hvm_instances() {
    for ok in [
        "/dev/xvda",
        "/dev/xvdb",
        "/dev/xvdz",
        "/dev/xvdba",
        "/dev/xvddz",
        "/dev/sdf",
        "/dev/sda1",
    ] {
        assert!(ebs_device_name(ok).is_ok(), "{ok}");
    }
    for bad in [
        "/dev/nvme1n1",
        "/dev/xvdea",
        "/dev/xvd",
        "/dev/sdf1",
        "xvdb",
        "/dev/xvdB",
        "",
        "/dev/hda",
    ] {
        assert!(ebs_device_name(bad).is_err(), "{bad}");
    }
}
