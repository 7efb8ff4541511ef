//! Compiles the catalog's data files (`data/*.csv`, one public source per row)
//! into the static tables of `catalog`: the facts live in reviewable rows, the
//! code only reads them. A malformed row fails the build with its file and line.

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;
use std::path::Path;

type Rows = Vec<BTreeMap<String, String>>;

/// Rows of a comma-separated file with a header line; `#` lines are comments.
/// No quoting: no field of these tables contains a comma.
fn read(path: &Path) -> Result<Rows, Box<dyn Error>> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    let header: Vec<String> = match lines.next() {
        Some((_, h)) => h.split(',').map(str::to_owned).collect(),
        None => return Err(format!("{}: no header", path.display()).into()),
    };
    let mut rows = Vec::new();
    for (n, line) in lines {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != header.len() {
            return Err(format!(
                "{}:{}: {} fields, the header has {}",
                path.display(),
                n + 1,
                fields.len(),
                header.len()
            )
            .into());
        }
        rows.push(
            header
                .iter()
                .cloned()
                .zip(fields.iter().map(|f| f.trim().to_owned()))
                .collect(),
        );
    }
    Ok(rows)
}

fn field<'a>(row: &'a BTreeMap<String, String>, key: &str) -> Result<&'a str, Box<dyn Error>> {
    row.get(key)
        .map(String::as_str)
        .ok_or_else(|| format!("missing column {key}").into())
}

fn number(row: &BTreeMap<String, String>, key: &str) -> Result<u32, Box<dyn Error>> {
    let v = field(row, key)?;
    v.parse().map_err(|_| format!("{key}: {v:?} is not a number").into())
}

fn optional_number(row: &BTreeMap<String, String>, key: &str) -> Result<String, Box<dyn Error>> {
    Ok(match field(row, key)? {
        "" => "None".to_owned(),
        v => format!(
            "Some({})",
            v.parse::<u32>().map_err(|_| format!("{key}: {v:?} is not a number"))?
        ),
    })
}

fn source(key: &str) -> Result<&'static str, Box<dyn Error>> {
    Ok(match key {
        "karpenter-instance-types" => "KarpenterInstanceTypes",
        "go-nvml+gpu-operator+hyperpod" => "MigThreeSources",
        "gpu-operator+hyperpod" => "MigTwoSources",
        "gpu-operator-mig-parted-config" => "GpuOperatorConfigMap",
        "unverified" => "Unverified",
        other => return Err(format!("unknown source {other:?}").into()),
    })
}

fn url(row: &BTreeMap<String, String>, key: &str) -> Result<String, Box<dyn Error>> {
    let u = field(row, key)?;
    if !u.starts_with("https://") {
        return Err(format!("{key}: {u:?} is not a public https URL").into());
    }
    Ok(format!("{u:?}"))
}

/// A static's name for a row: `prefix` and the name upper-cased, other characters as `_`.
fn const_ident(prefix: &str, name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    s.insert_str(0, prefix);
    s
}

fn ident(gpu: &str) -> String {
    const_ident("MIG_", gpu)
}

fn neuron_ident(device: &str) -> String {
    const_ident("NEURON_", device)
}

/// The "GB" figure of a profile name (`1g.18gb+me` → 18).
fn name_gb(profile: &str) -> Result<u32, Box<dyn Error>> {
    let rest = profile.split_once("g.").map(|(_, r)| r).ok_or("no '<n>g.' prefix")?;
    let end = rest.find("gb").ok_or("no 'gb'")?;
    rest[..end]
        .parse()
        .map_err(|_| format!("{profile:?}: no memory figure").into())
}

/// `yes` / `no`.
fn yes_no(row: &BTreeMap<String, String>, key: &str) -> Result<bool, Box<dyn Error>> {
    match field(row, key)? {
        "yes" => Ok(true),
        "no" => Ok(false),
        v => Err(format!("{key}: {v:?} is neither yes nor no").into()),
    }
}

/// `data/network_cards.csv` as `NETWORK_CARDS`. An empty cell must be named in `unverified`, and
/// a named column must be empty: a fact no source states is never filled in.
fn network_cards(data: &Path, out: &mut String) -> Result<(), Box<dyn Error>> {
    out.push_str("pub(super) static NETWORK_CARDS: &[NetworkCards] = &[\n");
    for r in read(&data.join("network_cards.csv"))? {
        let name = field(&r, "instance_type")?;
        let unverified: Vec<&str> = field(&r, "unverified")?.split_whitespace().collect();
        for col in [
            "network_cards",
            "max_network_interfaces",
            "max_interfaces_per_card",
            "max_efa_interfaces",
        ] {
            let empty = field(&r, col)?.is_empty();
            if empty != unverified.contains(&col) {
                return Err(format!("{name}: {col} is empty exactly when it is listed as unverified").into());
            }
        }
        let efa = yes_no(&r, "efa_supported")?;
        let cards = match (efa, field(&r, "efa_cards")?) {
            (true, "every-card") => "EveryCard",
            (true, "not-card-0") => "NotCard0",
            (true, "odd-cards") => "OddCards",
            (false, "") => "None",
            (_, v) => return Err(format!("{name}: efa_cards {v:?} does not fit efa_supported").into()),
        };
        let mut urls = String::new();
        for u in field(&r, "source_urls")?.split_whitespace() {
            if !u.starts_with("https://") {
                return Err(format!("{name}: {u:?} is not a public https URL").into());
            }
            write!(urls, "{u:?}, ")?;
        }
        writeln!(
            out,
            "    NetworkCards {{ instance_type: {name:?}, network_cards: {}, max_network_interfaces: {}, max_interfaces_per_card: {}, efa_supported: {efa}, max_efa_interfaces: {}, ena_express: {}, efa_cards: EfaCards::{cards}, unverified: &{unverified:?}, source_urls: &[{urls}] }},",
            optional_number(&r, "network_cards")?,
            optional_number(&r, "max_network_interfaces")?,
            optional_number(&r, "max_interfaces_per_card")?,
            optional_number(&r, "max_efa_interfaces")?,
            yes_no(&r, "ena_express")?,
        )?;
    }
    out.push_str("];\n");
    Ok(())
}

fn generate(data: &Path) -> Result<String, Box<dyn Error>> {
    let mut out = String::from("// @generated by build.rs from data/*.csv: edit the data files, not this.\n\n");
    let profiles = read(&data.join("mig_profiles.csv"))?;
    let mut gpus = Vec::new();
    for g in read(&data.join("mig_gpus.csv"))? {
        let name = field(&g, "gpu")?.to_owned();
        let mut list = String::new();
        for p in profiles.iter().filter(|p| p.get("gpu") == Some(&name)) {
            let profile = field(p, "profile")?;
            let gb = name_gb(profile)?;
            let (mib, from_driver, src) = match field(p, "memory_mib")? {
                // No public driver figure: the name's GB as 10^9 bytes, the lower reading.
                "" => (u64::from(gb) * 1_000_000_000 / 1_048_576, false, "\"\"".to_owned()),
                v => (v.parse::<u64>()?, true, url(p, "memory_source_url")?),
            };
            writeln!(
                list,
                "        MigProfile {{ name: {profile:?}, memory_gb: {gb}, memory_mib: {mib}, memory_from_driver: {from_driver}, memory_source_url: {src}, compute_slices: {}, max_instances: {} }},",
                number(p, "compute_slices")?,
                number(p, "max_instances")?
            )?;
        }
        let mut balanced = String::new();
        for part in field(&g, "balanced")?.split_whitespace() {
            let (p, n) = part
                .split_once(':')
                .ok_or_else(|| format!("{name}: balanced {part:?}"))?;
            write!(balanced, "({p:?}, {}), ", n.parse::<u32>()?)?;
        }
        writeln!(
            out,
            "pub(super) static {}: MigGpu = MigGpu {{\n    name: {name:?},\n    compute_slices: {},\n    max_instances: {},\n    profiles: &[\n{list}    ],\n    balanced: &[{balanced}],\n    source: Source::{},\n    source_url: {},\n}};\n",
            ident(&name),
            number(&g, "compute_slices")?,
            number(&g, "max_instances")?,
            source(field(&g, "source")?)?,
            url(&g, "source_url")?
        )?;
        gpus.push(name);
    }
    let mut devices = Vec::new();
    for d in read(&data.join("neuron_devices.csv"))? {
        let name = field(&d, "device")?.to_owned();
        writeln!(
            out,
            "pub(super) static {}: NeuronDevice = NeuronDevice {{ name: {name:?}, cores: {}, memory_gib: {}, source_url: {} }};\n",
            neuron_ident(&name),
            number(&d, "cores_per_device")?,
            number(&d, "memory_gib")?,
            url(&d, "source_url")?
        )?;
        devices.push(name);
    }
    out.push_str("pub(super) static INSTANCE_TYPES: &[InstanceType] = &[\n");
    for t in read(&data.join("gpu_instances.csv"))? {
        let name = field(&t, "instance_type")?;
        let model = field(&t, "gpu_model")?;
        let mig = match field(&t, "mig_gpu")? {
            "" => "None".to_owned(),
            g if gpus.iter().any(|x| x == g) => format!("Some(&{})", ident(g)),
            g => return Err(format!("{name}: unknown mig_gpu {g:?}").into()),
        };
        // A Neuron row's device is its gpu_model; an NVIDIA row has none and no NeuronCores.
        let (vendor, neuron) = match field(&t, "vendor")? {
            "nvidia" => ("Nvidia", "None".to_owned()),
            "neuron" if devices.iter().any(|d| d == model) => ("Neuron", format!("Some(&{})", neuron_ident(model))),
            "neuron" => return Err(format!("{name}: no row for {model:?} in neuron_devices.csv").into()),
            v => return Err(format!("{name}: unknown vendor {v:?}").into()),
        };
        let neuron_cores = optional_number(&t, "neuron_cores")?;
        if (vendor == "Neuron") != (neuron_cores != "None") {
            return Err(format!("{name}: neuron_cores is set exactly on neuron rows").into());
        }
        let arch = match field(&t, "architecture")? {
            "x86_64" => "X86_64",
            "arm64" => "Arm64",
            a => return Err(format!("unknown architecture {a:?}").into()),
        };
        let fractional: bool = field(&t, "fractional")?.parse()?;
        writeln!(
            out,
            "    InstanceType {{ name: {name:?}, gpu_model: {model:?}, vendor: Vendor::{vendor}, gpu_count: {}, gpu_memory_mib: {}, fractional: {fractional}, vcpus: {}, memory_gib: {}, architecture: Arch::{arch}, efa_interfaces: {}, mig: {mig}, neuron: {neuron}, neuron_cores: {neuron_cores}, local_nvme_gb: {}, source: Source::{}, source_url: {} }},",
            number(&t, "gpu_count")?,
            optional_number(&t, "gpu_memory_mib")?,
            number(&t, "vcpus")?,
            number(&t, "memory_gib")?,
            optional_number(&t, "efa_interfaces")?,
            optional_number(&t, "local_nvme_gb")?,
            source(field(&t, "source")?)?,
            url(&t, "source_url")?
        )?;
    }
    out.push_str("];\n");
    network_cards(data, &mut out)?;
    Ok(out)
}

fn main() -> Result<(), Box<dyn Error>> {
    let data = Path::new(&std::env::var("CARGO_MANIFEST_DIR")?).join("data");
    println!("cargo:rerun-if-changed=data");
    let code = generate(&data)?;
    std::fs::write(Path::new(&std::env::var("OUT_DIR")?).join("catalog_data.rs"), code)?;
    Ok(())
}
