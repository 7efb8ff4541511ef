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
    assert!(r.memory_gb_per_replica > 160.0);
    // Only on types observed to provision on Auto Mode: 4 × H100, not one p6-b300 GPU.
    assert_eq!(r.instance_types, ["p5.48xlarge"]);
    assert_eq!(r.gpus_per_replica, 2);
    assert!(codes(&r).contains(&Code::EKSGPU206));
    let bf16 = recommend(&Request {
        precision: Precision::Bf16,
        ..req(70.0)
    })
    .unwrap();
    assert_eq!(
        (bf16.capacity, bf16.instance_types[0].as_str()),
        (Capacity::AutoMode, "p5.48xlarge")
    );
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
fn whole_gpus_use_the_smallest_gpu_memory_that_fits() {
    // What EKSGPU205 promises: among all types, the smallest per-GPU memory holding a replica
    // on one instance, not the fewest GPUs.
    let r = recommend(&Request {
        spot_ok: true,
        ..req(40.0)
    })
    .unwrap();
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
            assert!(
                f64::from(m) * f64::from(t.gpu_count) < need_mib,
                "{} fits with less",
                t.name
            );
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
    // Never MIG mixed on Karpenter, whose scheduler counts nvidia.com/mig-* as zero.
    assert_ne!(any.capacity, Capacity::Karpenter);
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
    ] {
        for x in recommend(&r).unwrap().rationale {
            assert!(DECISIONS.iter().any(|d| d.code == x.code));
        }
    }
}
