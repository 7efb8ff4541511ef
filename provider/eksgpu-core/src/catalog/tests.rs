use super::*;

#[test]
fn h200_rows_have_eight_gpus_and_mig_profiles() {
    let f = Filter {
        gpu_model: Some("h200".into()),
        ..Filter::default()
    };
    let rows: Vec<_> = instance_types().iter().filter(|t| f.matches(t)).collect();
    let names: Vec<_> = rows.iter().map(|t| t.name).collect();
    assert_eq!(names, ["p5e.48xlarge", "p5en.48xlarge"]);
    let p5en = rows[1];
    assert_eq!(p5en.gpu_count, 8);
    assert_eq!(p5en.gpu_memory_mib, Some(144_384));
    let mig = p5en.mig.unwrap();
    assert_eq!(mig.profile("1g.18gb").unwrap().max_instances, 7);
    assert_eq!(mig.profile("3g.71gb").unwrap().compute_slices, 3);
}

#[test]
fn non_mig_gpus_are_not_mig_capable() {
    for name in ["g5.2xlarge", "g6.xlarge", "g6e.12xlarge", "g4dn.xlarge", "g5g.xlarge"] {
        assert!(!instance_type(name).unwrap().mig_capable(), "{name}");
    }
    for name in ["p4d.24xlarge", "p5.4xlarge", "p6-b200.48xlarge", "g7e.2xlarge"] {
        assert!(instance_type(name).unwrap().mig_capable(), "{name}");
    }
}

#[test]
fn filters_combine() {
    let f = Filter {
        mig_capable: Some(true),
        min_gpu_memory_mib: Some(150_000),
        ..Filter::default()
    };
    let names: Vec<_> = instance_types()
        .iter()
        .filter(|t| f.matches(t))
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["p6-b200.48xlarge", "p6-b300.48xlarge", "p6e-gb200.36xlarge"]);
    // Neuron rows have no GPU memory figure and never pass a memory filter.
    let f = Filter {
        gpu_model: Some("Trainium2".into()),
        min_gpu_memory_mib: Some(1),
        ..Filter::default()
    };
    assert_eq!(instance_types().iter().filter(|t| f.matches(t)).count(), 0);
}

#[test]
fn unverified_rows_are_marked() {
    assert!(!instance_type("p6e-gb200.36xlarge").unwrap().verified());
    // g7 itself is a fact, its MIG profile names are not.
    assert!(!instance_type("g7.2xlarge").unwrap().verified());
    assert!(instance_type("g7e.2xlarge").unwrap().verified());
}

#[test]
fn every_mig_table_is_consistent() {
    for t in instance_types() {
        let Some(mig) = t.mig else { continue };
        for p in mig.profiles {
            assert!(p.compute_slices <= mig.compute_slices, "{} {}", t.name, p.name);
            assert!(p.max_instances <= mig.max_instances, "{} {}", t.name, p.name);
            assert!(
                p.name.starts_with(&format!("{}g.", p.compute_slices)),
                "{} {}",
                t.name,
                p.name
            );
        }
        let balanced_slices: u32 = mig
            .balanced
            .iter()
            .map(|(name, n)| mig.profile(name).map_or(99, |p| p.compute_slices) * n)
            .sum();
        assert!(
            mig.balanced.is_empty() || balanced_slices <= mig.compute_slices,
            "{}",
            t.name
        );
        if let Some(mib) = t.gpu_memory_mib {
            // The biggest profile is the whole GPU: within 10 % of EC2's MiB figure.
            if let Some(whole) = mig.profiles.iter().max_by_key(|p| p.memory_mib) {
                #[allow(clippy::cast_precision_loss)]
                let ratio = whole.memory_mib as f64 / f64::from(mib);
                assert!((0.9..1.1).contains(&ratio), "{}: {ratio}", t.name);
            }
        }
    }
}

#[test]
fn names_are_unique_and_models_listed() {
    let mut names: Vec<_> = instance_types().iter().map(|t| t.name).collect();
    names.sort_unstable();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n);
    assert!(gpu_models().contains(&"L40S"));
}

#[test]
fn every_row_cites_a_public_source() {
    for t in instance_types() {
        assert!(t.source_url.starts_with("https://"), "{}", t.name);
        if let Some(m) = t.mig {
            assert!(m.source_url.starts_with("https://"), "{}", m.name);
            for p in m.profiles {
                assert_eq!(
                    p.memory_from_driver,
                    p.memory_source_url.starts_with("https://"),
                    "{} {}",
                    m.name,
                    p.name
                );
            }
        }
    }
}

#[test]
fn v100_types_are_in_the_catalog() {
    // EKS-supported NVIDIA types (EKS user guide, ML AMIs: p3, p3dn on AL2023/Bottlerocket NVIDIA).
    for (name, gpus, mib) in [
        ("p3.2xlarge", 1, 16_384),
        ("p3.16xlarge", 8, 16_384),
        ("p3dn.24xlarge", 8, 32_768),
    ] {
        let t = instance_type(name).unwrap();
        assert_eq!(
            (t.gpu_model, t.gpu_count, t.gpu_memory_mib),
            ("V100", gpus, Some(mib)),
            "{name}"
        );
        assert!(t.is_nvidia_gpu() && !t.mig_capable());
    }
}

#[test]
fn mig_memory_is_what_the_driver_reports() {
    // NVML memorySizeMB (go-nvml mock tables): not the name's GB figure.
    let a100 = instance_type("p4d.24xlarge").unwrap().mig.unwrap();
    assert_eq!(a100.profile("1g.5gb").unwrap().memory_mib, 4864);
    assert_eq!(a100.profile("1g.10gb").unwrap().memory_mib, 9856);
    let h200 = instance_type("p5en.48xlarge").unwrap().mig.unwrap();
    assert_eq!(h200.profile("3g.71gb").unwrap().memory_mib, 72_704);
    assert!(h200.profiles.iter().all(|p| p.memory_from_driver));
}
