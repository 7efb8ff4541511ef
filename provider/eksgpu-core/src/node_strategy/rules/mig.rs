//! A pool's MIG layout label (`nvidia.com/mig.config`) against its capacity
//! kind, its GPUs and the GPU Operator's MIG strategy.

use crate::catalog::{InstanceType, MigGpu, MigLayout};
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::render::MIG_CONFIG;
use crate::rules::{At, Code, Step, Violation};

/// EKSGPU003 on a config name mig-manager does not define; EKSGPU001, 002, 003 and 015 on a
/// layout that splits GPUs; per instance type, 002 or 003.
pub(super) fn mig_labels(
    s: &NodeStrategy,
    pool: &Pool,
    types: &[&'static InstanceType],
    at: &At<'_>,
    out: &mut Vec<Violation>,
) {
    let path = at(&[Step::Attr("labels"), Step::Key(MIG_CONFIG.to_owned())]);
    let Some(config) = pool.labels.get(MIG_CONFIG).map(String::as_str) else {
        return;
    };
    config_defined(config, &path, out);
    if !MigLayout::parse(config).splits() {
        return;
    }
    mig_on_auto_mode(pool, config, &path, out);
    for t in types {
        match t.mig {
            None => out.push(gpu_without_mig(t, &path)),
            Some(mig) => profile_of_the_gpu(t, mig, config, &path, out),
        }
    }
    single_strategy_with_balanced_layout(s, config, &path, out);
}

/// EKSGPU003: a config name mig-manager does not define (`garbage` is a fine label value and
/// no config); `all-<profile>` names are checked against the GPU's profiles instead.
fn config_defined(config: &str, path: &[Step], out: &mut Vec<Violation>) {
    if !config.starts_with("all-")
        && let Err(e) = crate::validate::mig_config_name(config)
    {
        out.push(Violation::new(Code::EKSGPU003, path.to_vec(), e.to_string()));
    }
}

/// EKSGPU001: MIG Manager cannot run on Auto Mode nodes.
fn mig_on_auto_mode(pool: &Pool, config: &str, path: &[Step], out: &mut Vec<Violation>) {
    if pool.capacity == Capacity::AutoMode {
        out.push(Violation::new(
            Code::EKSGPU001,
            path.to_vec(),
            format!("Pool {:?} selects MIG layout {config:?}.", pool.name),
        ));
    }
}

/// EKSGPU002: the type's GPU is not MIG-capable.
fn gpu_without_mig(t: &InstanceType, path: &[Step]) -> Violation {
    Violation::new(
        Code::EKSGPU002,
        path.to_vec(),
        format!("{} has {} GPUs, which MIG cannot split.", t.name, t.gpu_model),
    )
}

/// EKSGPU003: an `all-<profile>` layout names a profile the GPU has.
fn profile_of_the_gpu(t: &InstanceType, mig: &MigGpu, config: &str, path: &[Step], out: &mut Vec<Violation>) {
    // mig-parted config names write '+' as '.': all-1g.18gb.me is profile 1g.18gb+me.
    let profile = match MigLayout::parse(config) {
        MigLayout::All(p) => Some(p.to_string()),
        MigLayout::Custom(c) => c.strip_prefix("all-").map(str::to_owned),
        _ => None,
    };
    if let Some(name) = profile
        && !mig.profiles.is_empty()
        && mig.profile(&name).is_none()
    {
        out.push(Violation::new(
            Code::EKSGPU003,
            path.to_vec(),
            format!(
                "{} ({}) has no MIG profile {name:?}; it has {}.",
                t.name,
                t.gpu_model,
                mig.profiles.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
}

/// EKSGPU015: the `single` MIG strategy with the balanced (mixed-profile) layout.
fn single_strategy_with_balanced_layout(s: &NodeStrategy, config: &str, path: &[Step], out: &mut Vec<Violation>) {
    if MigLayout::parse(config) == MigLayout::Balanced && s.mig_strategy() == Some("single") {
        out.push(Violation::new(
            Code::EKSGPU015,
            path.to_vec(),
            "all-balanced mixes three profiles per GPU.".into(),
        ));
    }
}
