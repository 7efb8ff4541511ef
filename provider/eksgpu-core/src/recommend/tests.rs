//! One test per row of the decision table (model sizes, capacity kinds)
//! and the billed-instance example.

use super::*;
use crate::catalog;
use crate::rules::Code;

fn req(params: f64) -> Request {
    Request {
        model_params_b: params,
        precision: Precision::Fp16,
        replicas: 1,
        needs_mig: false,
        needs_dra: false,
        on_prem: false,
        spot_ok: false,
        multi_node_nvlink: false,
        price_per_hour: BTreeMap::new(),
        custom_cuda_kernels: false,
        quantization: None,
        available_on_neuron: false,
        data_residency: false,
        karpenter_node_overlay: false,
        karpenter_static_capacity: false,
        dev_test: false,
    }
}

fn on_neuron(params: f64) -> Request {
    Request {
        available_on_neuron: true,
        ..req(params)
    }
}

fn ways(r: &Recommendation) -> u32 {
    let profile = r.mig_profile.as_deref().unwrap();
    let t = catalog::instance_type(&r.instance_types[0]).unwrap();
    t.mig.unwrap().profile(profile).unwrap().max_instances
}

fn codes(r: &Recommendation) -> Vec<Code> {
    r.rationale.iter().map(|x| x.code).collect()
}

fn h100_priced(mut r: Request) -> Request {
    r.price_per_hour = BTreeMap::from([("p5.48xlarge".to_owned(), 55.04)]);
    r
}

#[test]
fn seventy_b_and_larger_run_on_auto_mode_with_whole_gpus() {
    let r = recommend(&req(70.0)).unwrap();
    assert_eq!(r.capacity, Capacity::AutoMode);
    assert_eq!(r.sharing, Sharing::Exclusive);
    assert_eq!(r.accelerator, catalog::Vendor::Nvidia);
    assert!(r.memory_gb_per_replica > 160.0);
    // The fewest GPUs that hold 168 GB on a family Auto Mode documents, less the types observed
    // to fail there (p6-b200) and the H200 class and later (field report 001 puts them on
    // Standard Mode): never a B300 on Auto Mode.
    for t in &r.instance_types {
        let gpu = catalog::instance_type(t).unwrap();
        assert!(!choose::standard_mode_gpu(gpu), "{t} ({}) on Auto Mode", gpu.gpu_model);
    }
    let why = r.rationale.iter().find(|x| x.code == Code::EKSGPU206).unwrap();
    assert!(
        why.message.contains("field report 001") && why.message.contains("70B+"),
        "{}",
        why.message
    );
    let bf16 = recommend(&Request {
        precision: Precision::Bf16,
        ..req(70.0)
    })
    .unwrap();
    assert_eq!(bf16.capacity, Capacity::AutoMode);
}

#[test]
fn h200_class_and_later_gpus_run_on_standard_mode_karpenter_not_auto_mode() {
    // Field report 001: EKS Standard Mode with Karpenter or node groups for H200+ and B200.
    for (ty, price) in [("p6-b300.48xlarge", 120.0), ("p5e.48xlarge", 70.0)] {
        for dev_test in [false, true] {
            let r = recommend(&Request {
                price_per_hour: BTreeMap::from([(ty.to_owned(), price)]),
                dev_test,
                ..req(70.0)
            })
            .unwrap();
            assert_eq!(r.instance_types, [ty]);
            assert_eq!(
                (r.capacity, r.sharing),
                (Capacity::Karpenter, Sharing::Exclusive),
                "{ty}"
            );
            let code = if dev_test { Code::EKSGPU213 } else { Code::EKSGPU206 };
            let why = r.rationale.iter().find(|x| x.code == code).unwrap();
            assert!(
                why.message.contains("field report 001") && why.message.contains("Standard Mode"),
                "{}",
                why.message
            );
        }
    }
    // 70B+ stays on Auto Mode on the H100 seen provisioning there (p5.48xlarge).
    let h100 = recommend(&h100_priced(req(70.0))).unwrap();
    assert_eq!(
        (h100.capacity, h100.instance_types.as_slice()),
        (Capacity::AutoMode, &["p5.48xlarge".to_owned()][..])
    );
}

#[test]
fn every_catalog_gpu_with_h200_memory_or_more_is_of_the_standard_mode_class() {
    let h200 = catalog::instance_type("p5e.48xlarge").unwrap().gpu_memory_mib.unwrap();
    for t in catalog::instance_types() {
        if t.is_nvidia_gpu() && t.gpu_memory_mib.is_some_and(|m| m >= h200) {
            assert!(choose::standard_mode_gpu(t), "{} ({})", t.name, t.gpu_model);
        }
    }
    for m in choose::STANDARD_MODE_GPU_MODELS {
        let listed = catalog::instance_types().iter().any(|t| t.gpu_model == *m);
        assert!(listed || *m == "GB300", "{m} is no catalog GPU");
    }
}

#[test]
fn replicas_over_several_gpus_need_nvlink_and_gpus_that_compute_the_precision() {
    // 150B at fp16 (360 GB) takes two GPUs; never over PCIe (g6e.48xlarge has 8 × 48 GB L40S).
    let r = recommend(&Request {
        spot_ok: true,
        ..req(150.0)
    })
    .unwrap();
    assert_eq!(r.gpus_per_replica, 2);
    for t in &r.instance_types {
        assert!(t.starts_with('p'), "{t} joins its GPUs over PCIe");
    }
    // FP8 needs Ada, Hopper or Blackwell: a 20B fp8 replica never lands on A10G or A100.
    let fp8 = recommend(&Request {
        precision: Precision::Fp8,
        spot_ok: true,
        ..req(40.0)
    })
    .unwrap();
    for t in &fp8.instance_types {
        let model = catalog::instance_type(t).unwrap().gpu_model;
        assert!(!["A10G", "A100", "T4", "V100"].contains(&model), "{t}: {model}");
    }
}

#[test]
fn large_models_take_whole_gpus_even_when_a_slice_would_hold_them() {
    // 70B int4 (42 GB) fits a 1g.45gb B200 slice; the table still gives it whole GPUs.
    let int4 = recommend(&Request {
        precision: Precision::Int4,
        ..req(70.0)
    })
    .unwrap();
    assert_eq!((int4.capacity, int4.sharing), (Capacity::AutoMode, Sharing::Exclusive));
    // 32B at fp16 (76.8 GB) fits a B200 3g.90gb slice: 30B+ takes whole GPUs.
    let r = recommend(&req(32.0)).unwrap();
    assert_eq!(r.sharing, Sharing::Exclusive);
    assert!(r.mig_profile.is_none());
}

#[test]
fn thirty_to_seventy_b_run_on_auto_mode_or_karpenter_with_whole_gpus() {
    let r = recommend(&req(65.0)).unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::AutoMode, Sharing::Exclusive));
    let spot = recommend(&Request {
        spot_ok: true,
        ..req(65.0)
    })
    .unwrap();
    assert_eq!((spot.capacity, spot.sharing), (Capacity::Karpenter, Sharing::Exclusive));
    // On H100s (the reference GPU), 65B at fp16 needs two GPUs per replica.
    let h100 = recommend(&h100_priced(req(65.0))).unwrap();
    assert_eq!(h100.gpus_per_replica, 2);
    assert_eq!(h100.instance_types, ["p5.48xlarge"]);
}

#[test]
fn whole_gpus_use_the_fewest_gpus_then_the_smallest_memory() {
    // What EKSGPU205 promises: the fewest GPUs per replica on one instance, then among those the
    // smallest per-GPU memory.
    let r = recommend(&Request {
        spot_ok: true,
        ..req(40.0)
    })
    .unwrap();
    assert_eq!(r.gpus_per_replica, 1);
    let chosen = catalog::instance_type(&r.instance_types[0])
        .unwrap()
        .gpu_memory_mib
        .unwrap();
    let need_mib = r.memory_gb_per_replica * 1e9 / 1_048_576.0;
    for t in catalog::instance_types()
        .iter()
        .filter(|t| t.is_nvidia_gpu() && !t.fractional && !t.name.starts_with("p6e-"))
    {
        if let Some(m) = t.gpu_memory_mib
            && m < chosen
        {
            assert!(f64::from(m) < need_mib, "{} holds it on one smaller GPU", t.name);
        }
    }
}

#[test]
fn thirteen_to_thirty_b_split_gpus_two_ways_with_mig_on_static_capacity() {
    let h100 = recommend(&h100_priced(req(13.0))).unwrap();
    assert_eq!(
        (h100.capacity, h100.sharing),
        (Capacity::ManagedNodeGroup, Sharing::Mig)
    );
    assert_eq!(h100.mig_profile.as_deref(), Some("3g.40gb"));
    assert_eq!(ways(&h100), 2);
    // Without a price list the smallest fitting 2-way slice decides.
    let any = recommend(&req(30.0)).unwrap();
    assert_eq!((any.capacity, any.sharing), (Capacity::ManagedNodeGroup, Sharing::Mig));
    assert_eq!(ways(&any), 2);
}

#[test]
fn seven_b_and_smaller_split_gpus_four_to_seven_ways_with_mig() {
    let h100 = recommend(&h100_priced(req(7.0))).unwrap();
    assert_eq!(
        (h100.capacity, h100.sharing),
        (Capacity::ManagedNodeGroup, Sharing::Mig)
    );
    assert_eq!(h100.mig_profile.as_deref(), Some("1g.20gb"));
    assert_eq!(ways(&h100), 4);
    let any = recommend(&req(7.0)).unwrap();
    assert!((4..=7).contains(&ways(&any)), "{any:?}");
    // Never MIG on Karpenter without NodeOverlays: its scheduler counts nvidia.com/mig-* as zero.
    assert_ne!(any.capacity, Capacity::Karpenter);
}

#[test]
fn mig_goes_to_karpenter_where_its_node_overlays_count_the_slices() {
    let r = recommend(&Request {
        karpenter_node_overlay: true,
        ..req(7.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::Karpenter, Sharing::Mig));
    let why = r.rationale.iter().find(|x| x.code == Code::EKSGPU204).unwrap();
    assert!(why.message.contains("NodeOverlays"), "{}", why.message);
    let without = recommend(&req(7.0)).unwrap();
    let why = without.rationale.iter().find(|x| x.code == Code::EKSGPU204).unwrap();
    assert!(why.message.contains("karpenter_feature_gates"), "{}", why.message);
}

#[test]
fn a_model_available_on_neuron_runs_on_neuron_devices() {
    let r = recommend(&on_neuron(70.0)).unwrap();
    assert_eq!(r.accelerator, catalog::Vendor::Neuron);
    assert_eq!((r.capacity, r.sharing), (Capacity::AutoMode, Sharing::Exclusive));
    // 168 GB: two 96 GB Trainium2 devices, fewer than Inferentia2's or Trainium's 32 GB ones.
    assert_eq!((r.instance_types[0].as_str(), r.gpus_per_replica), ("trn2.48xlarge", 2));
    assert!(codes(&r).contains(&Code::EKSGPU211) && codes(&r).contains(&Code::EKSGPU212));
    let small = recommend(&Request {
        spot_ok: true,
        ..on_neuron(7.0)
    })
    .unwrap();
    assert_eq!(
        (small.capacity, small.instance_types[0].as_str()),
        (Capacity::Karpenter, "inf2.xlarge")
    );
}

#[test]
fn each_nvidia_need_keeps_a_neuron_model_on_nvidia_naming_it() {
    for (r, says) in [
        (
            Request {
                custom_cuda_kernels: true,
                ..on_neuron(7.0)
            },
            "custom CUDA kernels",
        ),
        (
            Request {
                quantization: Some(Quantization::Awq),
                ..on_neuron(7.0)
            },
            "AWQ",
        ),
        (
            Request {
                quantization: Some(Quantization::Gguf),
                ..on_neuron(7.0)
            },
            "GGUF",
        ),
        (
            Request {
                precision: Precision::Int4,
                ..on_neuron(7.0)
            },
            "int4",
        ),
        (
            Request {
                needs_mig: true,
                ..on_neuron(7.0)
            },
            "MIG",
        ),
        (
            Request {
                multi_node_nvlink: true,
                ..on_neuron(400.0)
            },
            "NVLink",
        ),
        (
            Request {
                needs_dra: true,
                ..on_neuron(7.0)
            },
            "DRA",
        ),
        (req(7.0), "available_on_neuron"),
    ] {
        let out = recommend(&r).unwrap();
        assert_eq!(out.accelerator, catalog::Vendor::Nvidia, "{says}");
        let why = out.rationale.iter().find(|x| x.code == Code::EKSGPU211).unwrap();
        assert!(why.message.contains(says), "{says}: {}", why.message);
    }
    // No quantization beyond the precision leaves Neuron open.
    let none = recommend(&Request {
        quantization: Some(Quantization::None),
        ..on_neuron(7.0)
    })
    .unwrap();
    assert_eq!(none.accelerator, catalog::Vendor::Neuron);
}

#[test]
fn data_residency_goes_to_nvidia_on_hybrid_nodes_never_neuron() {
    let r = recommend(&Request {
        data_residency: true,
        ..on_neuron(7.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.accelerator), (Capacity::Hybrid, catalog::Vendor::Nvidia));
    let why = r.rationale.iter().find(|x| x.code == Code::EKSGPU211).unwrap();
    assert!(why.message.contains("only on EC2"), "{}", why.message);
}

#[test]
fn many_models_share_mig_slices_on_static_capacity() {
    let r = recommend(&Request {
        replicas: 20,
        ..req(3.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::ManagedNodeGroup, Sharing::Mig));
    assert!(r.gpus_used.unwrap() < 20);
}

#[test]
fn needs_mig_goes_to_a_managed_node_group_even_for_a_whole_gpu_profile() {
    let r = recommend(&Request {
        needs_mig: true,
        ..req(65.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::ManagedNodeGroup, Sharing::Mig));
    assert!(r.mig_profile.is_some());
}

#[test]
fn needs_dra_goes_to_a_managed_node_group() {
    let r = recommend(&Request {
        needs_dra: true,
        ..req(13.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::ManagedNodeGroup, Sharing::Dra));
    assert!(codes(&r).contains(&Code::EKSGPU202));
}

#[test]
fn multi_node_nvlink_goes_to_gb200_capacity_with_dra() {
    let r = recommend(&Request {
        multi_node_nvlink: true,
        ..req(400.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::ManagedNodeGroup, Sharing::Dra));
    assert!(r.instance_types.iter().all(|t| t.starts_with("p6e-")));
    assert!(codes(&r).contains(&Code::EKSGPU203));
    // 960 GB per replica spans nodes of 4 GB200s: 8 GPUs, 2 instances per replica.
    assert_eq!((r.gpus_per_replica, r.billed_instances), (8, 2));
    // p6e capacity is not offered otherwise.
    assert!(
        recommend(&req(400.0))
            .unwrap()
            .instance_types
            .iter()
            .all(|t| !t.starts_with("p6e-"))
    );
}

#[test]
fn on_prem_goes_to_hybrid_nodes_and_bills_nothing_on_ec2() {
    let r = recommend(&Request {
        on_prem: true,
        ..req(13.0)
    })
    .unwrap();
    assert_eq!(r.capacity, Capacity::Hybrid);
    assert!(r.instance_types.is_empty());
    assert_eq!((r.billed_instances, r.monthly_cost, r.gpus_used), (0, None, None));
    assert!(codes(&r).contains(&Code::EKSGPU201));
}

#[test]
fn spot_acceptable_goes_to_karpenter_spot() {
    let r = recommend(&Request {
        spot_ok: true,
        ..req(80.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::Karpenter, Sharing::Exclusive));
    assert!(codes(&r).contains(&Code::EKSGPU207));
}

#[test]
fn eight_seven_b_replicas_on_a_p5_are_one_billed_instance_either_way() {
    let r = recommend(&h100_priced(Request {
        replicas: 8,
        ..req(7.0)
    }))
    .unwrap();
    assert_eq!(r.billed_instances, 1);
    assert_eq!(r.billed_instance_type.as_deref(), Some("p5.48xlarge"));
    assert_eq!(r.gpus_used, Some(2), "MIG 4-way: 2 of 8 GPUs");
    let billed = r.rationale.iter().find(|x| x.code == Code::EKSGPU208).unwrap();
    assert!(
        billed.message.contains("use 2 of 8 GPUs on 1 × p5.48xlarge")
            && billed.message.contains("whole GPUs would use 8 GPUs on 1 instance"),
        "{}",
        billed.message
    );
    // ~$40,000 a month, from the given price only.
    let cost = r.monthly_cost.unwrap();
    assert!((cost - 55.04 * 730.0).abs() < 0.01);
}

#[test]
fn no_price_no_cost() {
    let r = recommend(&req(7.0)).unwrap();
    assert_eq!(r.monthly_cost, None);
    assert!(
        r.rationale
            .iter()
            .any(|x| x.code == Code::EKSGPU209 && x.message.contains("No price"))
    );
}

#[test]
fn precision_scales_memory() {
    let fp16 = recommend(&req(70.0)).unwrap().memory_gb_per_replica;
    let int4 = recommend(&Request {
        precision: Precision::Int4,
        ..req(70.0)
    })
    .unwrap()
    .memory_gb_per_replica;
    assert!((fp16 - 168.0).abs() < 1e-9 && (int4 - 42.0).abs() < 1e-9);
}

#[test]
fn impossible_requests_are_errors() {
    assert!(matches!(
        recommend(&req(5000.0)),
        Err(RecommendError::NothingFits { .. })
    ));
    assert!(matches!(recommend(&req(0.0)), Err(RecommendError::Invalid(_))));
    assert!(matches!(
        recommend(&Request {
            replicas: 0,
            ..req(7.0)
        }),
        Err(RecommendError::Invalid(_))
    ));
    let priced_elsewhere = Request {
        price_per_hour: BTreeMap::from([("g5.xlarge".to_owned(), 1.0)]),
        ..req(70.0)
    };
    assert!(
        recommend(&priced_elsewhere)
            .unwrap_err()
            .to_string()
            .contains("price_per_hour")
    );
}

#[test]
fn every_rationale_code_is_a_documented_decision() {
    for r in [
        req(7.0),
        req(70.0),
        Request {
            on_prem: true,
            ..req(7.0)
        },
        on_neuron(13.0),
        Request {
            karpenter_node_overlay: true,
            ..req(7.0)
        },
    ] {
        for x in recommend(&r).unwrap().rationale {
            assert!(DECISIONS.iter().any(|d| d.code == x.code));
        }
    }
}

#[test]
fn dra_goes_to_static_karpenter_where_the_provider_runs_static_capacity_but_gb200_does_not() {
    let r = recommend(&Request {
        needs_dra: true,
        karpenter_static_capacity: true,
        ..req(13.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::Karpenter, Sharing::Dra));
    let gb200 = recommend(&Request {
        multi_node_nvlink: true,
        karpenter_static_capacity: true,
        ..req(400.0)
    })
    .unwrap();
    assert_eq!(gb200.capacity, Capacity::ManagedNodeGroup);
    let without = recommend(&Request {
        needs_dra: true,
        ..req(13.0)
    })
    .unwrap();
    let why = without.rationale.iter().find(|x| x.code == Code::EKSGPU202).unwrap();
    assert!(why.message.contains("staticCapacity"), "{}", why.message);
}

#[test]
fn dev_and_test_run_on_auto_mode_whatever_the_size() {
    for params in [3.0, 13.0, 70.0] {
        let r = recommend(&Request {
            dev_test: true,
            ..req(params)
        })
        .unwrap();
        assert_eq!(
            (r.capacity, r.sharing),
            (Capacity::AutoMode, Sharing::Exclusive),
            "{params}B"
        );
        assert!(codes(&r).contains(&Code::EKSGPU213));
    }
}

#[test]
fn available_on_neuron_with_only_nvidia_prices_recommends_the_nvidia_type_that_fits() {
    let r = recommend(&Request {
        price_per_hour: BTreeMap::from([("g6e.xlarge".to_owned(), 1.861)]),
        ..on_neuron(7.0)
    })
    .expect("an NVIDIA type fits");
    assert_eq!(r.accelerator, catalog::Vendor::Nvidia);
    assert_eq!(r.instance_types, ["g6e.xlarge"]);
    assert!(
        r.rationale
            .iter()
            .any(|w| w.code == Code::EKSGPU211 && w.message.contains("no Neuron type")),
        "{:?}",
        r.rationale
    );
    // With a Neuron type priced, Neuron still serves.
    let n = recommend(&Request {
        price_per_hour: BTreeMap::from([("g6e.xlarge".to_owned(), 1.861), ("trn1.2xlarge".to_owned(), 1.34)]),
        ..on_neuron(7.0)
    })
    .expect("neuron");
    assert_eq!(n.accelerator, catalog::Vendor::Neuron);
}
