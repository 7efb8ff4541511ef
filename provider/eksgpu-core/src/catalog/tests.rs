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

#[test]
fn vendor_follows_the_family() {
    // EC2 naming: trn/inf are AWS Trainium/Inferentia, p/g NVIDIA (g4ad, AMD, is not in the catalog).
    for t in instance_types() {
        let want = if t.name.starts_with("trn") || t.name.starts_with("inf") {
            Vendor::Neuron
        } else {
            assert!(t.name.starts_with('p') || t.name.starts_with('g'), "{}", t.name);
            Vendor::Nvidia
        };
        assert_eq!(t.vendor(), want, "{}", t.name);
        assert_eq!(t.is_nvidia_gpu(), want == Vendor::Nvidia, "{}", t.name);
        assert_eq!(t.manufacturer().vendor(), want, "{}", t.name);
    }
}

#[test]
fn neuron_rows_are_x86_64_with_devices_cores_and_memory() {
    // The Neuron AMIs (AL2023 and Bottlerocket) exist for x86_64 only.
    let neuron: Vec<_> = instance_types().iter().filter(|t| t.is_neuron()).collect();
    let mut families: Vec<_> = neuron.iter().map(|t| t.family()).collect();
    families.dedup();
    assert_eq!(families, ["trn1", "trn1n", "trn2", "inf1", "inf2"]);
    for t in neuron {
        assert_eq!(t.architecture, Arch::X86_64, "{}", t.name);
        let device = t.neuron.unwrap_or_else(|| panic!("{} has no Neuron device", t.name));
        assert_eq!(device.name, t.gpu_model, "{}", t.name);
        // Two sources agree: Karpenter's neuroncore count and the Neuron guide's cores per device.
        assert_eq!(t.neuron_cores(), Some(t.gpu_count * device.cores), "{}", t.name);
        assert!(t.neuron_devices().is_some_and(|n| n > 0), "{}", t.name);
        assert!(t.efa_interfaces().is_some(), "{}", t.name);
        assert!(
            t.mig.is_none() && t.gpu_memory_mib.is_none() && !t.fractional,
            "{}",
            t.name
        );
    }
}

#[test]
fn nvidia_rows_have_no_neuron_facts() {
    for t in instance_types().iter().filter(|t| t.is_nvidia_gpu()) {
        assert!(
            t.neuron.is_none() && t.neuron_cores().is_none() && t.neuron_devices().is_none(),
            "{}",
            t.name
        );
        assert_eq!(t.accelerator_memory_mib(), t.gpu_memory_mib, "{}", t.name);
    }
}

#[test]
fn neuron_figures_are_the_guides() {
    for (name, devices, cores, memory_gib, efa) in [
        ("trn1.2xlarge", 1, 2, 32, 0),
        ("trn1.32xlarge", 16, 32, 32, 8),
        ("trn1n.32xlarge", 16, 32, 32, 16),
        ("trn2.48xlarge", 16, 128, 96, 16),
        ("inf1.xlarge", 1, 4, 8, 0),
        ("inf1.24xlarge", 16, 64, 8, 1),
        ("inf2.xlarge", 1, 2, 32, 0),
        ("inf2.48xlarge", 12, 24, 32, 0),
    ] {
        let t = instance_type(name).unwrap();
        assert_eq!(
            (
                t.neuron_devices(),
                t.neuron_cores(),
                t.accelerator_memory_mib(),
                t.efa_interfaces()
            ),
            (Some(devices), Some(cores), Some(memory_gib * 1024), Some(efa)),
            "{name}"
        );
    }
}

#[test]
fn every_row_is_accelerated() {
    for t in instance_types() {
        assert!(t.is_accelerated(), "{}", t.name);
    }
    // Fractional GPUs count although they have no whole GPU.
    let g6f = instance_type("g6f.large").unwrap();
    assert!(g6f.gpu_count == 0 && g6f.is_accelerated());
}

#[test]
fn sources_are_pinned() {
    // A tag or a commit, never a moving branch, so the row can be checked against what it cites.
    for t in instance_types() {
        assert!(
            !t.source_url.contains("/blob/main/") && !t.source_url.contains("/blob/master/"),
            "{}",
            t.name
        );
    }
    for t in instance_types().iter().filter(|t| t.is_neuron()) {
        let url = t.neuron.map(|d| d.source_url).unwrap_or_default();
        assert!(
            url.starts_with("https://awsdocs-neuron.readthedocs-hosted.com/en/v2."),
            "{}: {url}",
            t.name
        );
    }
}

#[test]
fn vendors_parse_and_name_their_resources() {
    assert_eq!(Vendor::parse("Neuron"), Some(Vendor::Neuron));
    assert_eq!(Vendor::parse(" nvidia "), Some(Vendor::Nvidia));
    assert_eq!(Vendor::parse("amd"), None);
    assert_eq!(Vendor::Neuron.device_resource(), "aws.amazon.com/neuron");
    assert_eq!(Vendor::Nvidia.device_resource(), "nvidia.com/gpu");
    for v in [Vendor::Nvidia, Vendor::Neuron] {
        assert_eq!(Vendor::parse(v.as_str()), Some(v));
        assert_eq!(v.manufacturer().vendor(), v);
    }
}

#[test]
fn auto_mode_support_is_per_family() {
    assert_eq!(
        instance_type("trn2.48xlarge").unwrap().auto_mode_support(),
        AutoModeSupport::Documented
    );
    assert_eq!(
        instance_type("g6f.xlarge").unwrap().auto_mode_support(),
        AutoModeSupport::NotDocumented
    );
}

#[test]
fn the_vendor_filter_splits_nvidia_from_neuron() {
    let of = |v: Vendor| -> Vec<&str> {
        let f = Filter {
            vendor: Some(v),
            ..Filter::default()
        };
        instance_types()
            .iter()
            .filter(|t| f.matches(t))
            .map(|t| t.name)
            .collect()
    };
    let neuron = of(Vendor::Neuron);
    assert!(neuron.contains(&"trn2.48xlarge") && neuron.contains(&"inf1.xlarge"));
    assert!(neuron.iter().all(|n| n.starts_with("trn") || n.starts_with("inf")));
    let nvidia = of(Vendor::Nvidia);
    assert!(nvidia.contains(&"p5.48xlarge") && !nvidia.contains(&"trn2.48xlarge"));
    assert_eq!(neuron.len() + nvidia.len(), instance_types().len());
    let f = Filter {
        vendor: Some(Vendor::Neuron),
        ..Filter::default()
    };
    assert!(entries(&f, None).iter().all(|e| e.vendor == Vendor::Neuron));
}
