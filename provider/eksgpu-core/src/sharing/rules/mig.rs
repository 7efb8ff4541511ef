//! A sharing pool's `mig` block against the GPUs it may get.

use super::super::{Mig, SharingPool};
use crate::catalog::{InstanceType, MigGpu, MigLayout};
use crate::rules::{Code, Step, Violation};

fn at(a: &'static str) -> Vec<Step> {
    vec![Step::Attr("mig"), Step::Attr(a)]
}

/// EKSGPU108, 003 (the config's name), 002, 003, 015 and 109 on the `mig` block, in that order. A GPU without MIG
/// (EKSGPU002) ends the checks: the layout has nothing to be checked against.
pub(super) fn check_mig(p: &SharingPool, mig: &Mig, out: &mut Vec<Violation>) {
    mig_settings(mig, out);
    config_defined(mig, out);
    for t in p.gpus() {
        let Some(gpu) = t.mig else {
            out.push(Violation::new(
                Code::EKSGPU002,
                vec![Step::Attr("strategy")],
                format!("{} has {} GPUs, which MIG cannot split.", t.name, t.gpu_model),
            ));
            return;
        };
        if gpu.profiles.is_empty() {
            continue; // Profile names of this GPU are not published (catalog marks it unverified).
        }
        profiles_fit(t, gpu, mig, out);
        config_profile(t, gpu, mig, out);
    }
    single_strategy_with_several_profiles(mig, out);
    named_layout(p, mig, out);
}

/// EKSGPU108: the strategy is `single` or `mixed`, and exactly one of `profiles` and `config` is set.
fn mig_settings(mig: &Mig, out: &mut Vec<Violation>) {
    if !["single", "mixed"].contains(&mig.strategy.as_str()) {
        out.push(Violation::new(
            Code::EKSGPU108,
            at("strategy"),
            format!("{:?} is not single or mixed.", mig.strategy),
        ));
    }
    if mig.config.is_some() != mig.profiles.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU108,
            vec![Step::Attr("mig")],
            "Set exactly one of profiles and config.".into(),
        ));
    }
}

/// EKSGPU003: a config name mig-manager does not define (`all-<profile>` is checked per GPU
/// by [`config_profile`]).
fn config_defined(mig: &Mig, out: &mut Vec<Violation>) {
    if let Some(config) = &mig.config
        && !config.starts_with("all-")
        && let Err(e) = crate::validate::mig_config_name(config)
    {
        out.push(Violation::new(Code::EKSGPU003, at("config"), e.to_string()));
    }
}

fn valid_profiles(gpu: &MigGpu) -> String {
    gpu.profiles.iter().map(|x| x.name).collect::<Vec<_>>().join(", ")
}

/// EKSGPU003: each profile is the GPU's, fits as many times as asked, and together they fit
/// the GPU's compute slices and instances.
fn profiles_fit(t: &InstanceType, gpu: &MigGpu, mig: &Mig, out: &mut Vec<Violation>) {
    let (mut slices, mut instances) = (0i64, 0i64);
    for (name, n) in &mig.profiles {
        let path = vec![Step::Attr("mig"), Step::Attr("profiles"), Step::Key(name.clone())];
        match gpu.profile(name) {
            None => out.push(Violation::new(
                Code::EKSGPU003,
                path,
                format!(
                    "{} ({}) has no profile {name:?}; it has {}.",
                    t.name,
                    t.gpu_model,
                    valid_profiles(gpu)
                ),
            )),
            Some(pr) => {
                if *n > i64::from(pr.max_instances) || *n < 1 {
                    out.push(Violation::new(
                        Code::EKSGPU003,
                        path,
                        format!("{name} fits {} times on one GPU, not {n}.", pr.max_instances),
                    ));
                }
                slices += i64::from(pr.compute_slices) * n;
                instances += n;
            }
        }
    }
    if slices > i64::from(gpu.compute_slices) || instances > i64::from(gpu.max_instances) {
        out.push(Violation::new(
            Code::EKSGPU003,
            at("profiles"),
            format!("The layout takes {slices} compute slices in {instances} instances; one {} GPU has {} slices and at most {} instances.", t.gpu_model, gpu.compute_slices, gpu.max_instances),
        ));
    }
}

/// EKSGPU003: an `all-<profile>` config names a profile the GPU has.
fn config_profile(t: &InstanceType, gpu: &MigGpu, mig: &Mig, out: &mut Vec<Violation>) {
    let layout = mig.config.as_deref().map(MigLayout::parse);
    let named = match &layout {
        Some(MigLayout::All(profile)) => Some(profile.to_string()),
        // `all-` followed by something that is not a profile name at all.
        Some(MigLayout::Custom(c)) => c.strip_prefix("all-").map(str::to_owned),
        _ => None,
    };
    if let Some(name) = named
        && gpu.profile(&name).is_none()
    {
        out.push(Violation::new(
            Code::EKSGPU003,
            at("config"),
            format!(
                "{} ({}) has no profile {name:?}; it has {}.",
                t.name,
                t.gpu_model,
                valid_profiles(gpu)
            ),
        ));
    }
}

/// EKSGPU015: the `single` strategy with a layout of several profiles per GPU.
fn single_strategy_with_several_profiles(mig: &Mig, out: &mut Vec<Violation>) {
    let profiles_used = if mig.profiles.is_empty() {
        usize::from(mig.config.as_deref().map(MigLayout::parse) == Some(MigLayout::Balanced)) * 3
    } else {
        mig.profiles.len()
    };
    if mig.strategy == "single" && profiles_used > 1 {
        out.push(Violation::new(
            Code::EKSGPU015,
            at("strategy"),
            "The layout mixes several profiles per GPU.".into(),
        ));
    }
}

/// EKSGPU109: `profiles` describe a layout mig-parted has a name for (one profile filling the
/// GPU, or the balanced layout).
fn named_layout(p: &SharingPool, mig: &Mig, out: &mut Vec<Violation>) {
    if !mig.profiles.is_empty() && p.mig_config_name().is_none() {
        out.push(Violation::new(
            Code::EKSGPU109,
            at("profiles"),
            "This layout is neither one profile filling the GPU (all-<profile>) nor the balanced layout.".into(),
        ));
    }
    if let Some((name, n)) = mig.profiles.iter().next()
        && mig.profiles.len() == 1
        && let Some(pr) = p.gpus().first().and_then(|t| t.mig).and_then(|g| g.profile(name))
        && *n != i64::from(pr.max_instances)
        && *n <= i64::from(pr.max_instances)
    {
        out.push(Violation::new(
            Code::EKSGPU109,
            vec![Step::Attr("mig"), Step::Attr("profiles"), Step::Key(name.clone())],
            format!("all-{name} places {} instances per GPU, not {n}.", pr.max_instances),
        ));
    }
}
