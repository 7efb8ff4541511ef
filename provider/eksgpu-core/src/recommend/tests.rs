//! One test per row of the seeds' decision tables (seeds-digest §4 model
//! sizes, §9 decision summary) and the billed-instance example.

use super::*;

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

fn codes(r: &Recommendation) -> Vec<&'static str> {
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
    assert!(r.gpus_per_replica >= 1);
    assert!(r.memory_gb_per_replica > 160.0);
    // Never a type observed failing on Auto Mode.
    assert!(
        r.instance_types
            .iter()
            .all(|t| !AUTO_MODE_OBSERVED_FAILURES.contains(&t.as_str()))
    );
    assert!(codes(&r).contains(&"EKSGPU206"));
}

#[test]
fn thirty_to_sixty_five_b_run_on_auto_mode_or_karpenter_with_whole_gpus() {
    let r = recommend(&req(65.0)).unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::AutoMode, Sharing::Exclusive));
    let spot = recommend(&Request {
        spot_ok: true,
        ..req(65.0)
    })
    .unwrap();
    assert_eq!((spot.capacity, spot.sharing), (Capacity::Karpenter, Sharing::Exclusive));
    // On H100s (the seeds' reference GPU), 65B at fp16 needs two GPUs per replica.
    let h100 = recommend(&h100_priced(req(65.0))).unwrap();
    assert_eq!(h100.gpus_per_replica, 2);
    assert_eq!(h100.instance_types, ["p5.48xlarge"]);
}

#[test]
fn thirteen_to_thirty_b_split_gpus_two_ways_with_mig_on_karpenter() {
    let h100 = recommend(&h100_priced(req(13.0))).unwrap();
    assert_eq!((h100.capacity, h100.sharing), (Capacity::Karpenter, Sharing::Mig));
    assert_eq!(h100.mig_profile.as_deref(), Some("3g.40gb"));
    assert_eq!(ways(&h100), 2);
    // Without a price list the smallest fitting slice decides: still a split.
    let any = recommend(&req(30.0)).unwrap();
    assert_eq!(any.sharing, Sharing::Mig);
    assert!(ways(&any) >= 2);
}

#[test]
fn seven_b_and_smaller_split_gpus_four_to_seven_ways_with_mig() {
    let h100 = recommend(&h100_priced(req(7.0))).unwrap();
    assert_eq!((h100.capacity, h100.sharing), (Capacity::Karpenter, Sharing::Mig));
    assert_eq!(h100.mig_profile.as_deref(), Some("1g.20gb"));
    assert_eq!(ways(&h100), 4);
    let any = recommend(&req(7.0)).unwrap();
    assert!((4..=7).contains(&ways(&any)), "{any:?}");
}

#[test]
fn many_models_share_mig_slices_on_karpenter() {
    let r = recommend(&Request {
        replicas: 20,
        ..req(3.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::Karpenter, Sharing::Mig));
    assert!(r.gpus_used.unwrap() < 20);
}

#[test]
fn needs_mig_goes_to_karpenter_even_for_a_whole_gpu_profile() {
    let r = recommend(&Request {
        needs_mig: true,
        ..req(65.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::Karpenter, Sharing::Mig));
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
    assert!(codes(&r).contains(&"EKSGPU202"));
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
    assert!(codes(&r).contains(&"EKSGPU203"));
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
    assert!(codes(&r).contains(&"EKSGPU201"));
}

#[test]
fn spot_acceptable_goes_to_karpenter_spot() {
    let r = recommend(&Request {
        spot_ok: true,
        ..req(80.0)
    })
    .unwrap();
    assert_eq!((r.capacity, r.sharing), (Capacity::Karpenter, Sharing::Exclusive));
    assert!(codes(&r).contains(&"EKSGPU207"));
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
    let billed = r.rationale.iter().find(|x| x.code == "EKSGPU208").unwrap();
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
            .any(|x| x.code == "EKSGPU209" && x.message.contains("No price"))
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
