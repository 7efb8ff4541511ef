//! Catalog rows as the data source reports them, optionally refreshed with what
//! EC2 `DescribeInstanceTypes` says in the provider's region.

use super::{Arch, InstanceType, Manufacturer, MigGpu, MigProfile, Source, Vendor, instance_types};

/// What EC2 reports for one instance type with GPUs or Neuron devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveInstanceType {
    pub name: String,
    /// EC2's accelerator name (`H100`, `T4g`, `Trainium2`).
    pub gpu_model: String,
    pub manufacturer: Manufacturer,
    pub gpu_count: u32,
    pub gpu_memory_mib: Option<u32>,
    pub architecture: Arch,
    pub efa_interfaces: u32,
}

/// One row of the `eksgpu_gpu_catalog` data source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub instance_type: String,
    pub gpu_model: String,
    /// Whose accelerators: from the catalog row, or from EC2's manufacturer.
    pub vendor: Vendor,
    pub gpu_count: u32,
    pub gpu_memory_mib: Option<u32>,
    pub mig_capable: bool,
    pub mig_profiles: Vec<MigProfile>,
    pub architecture: Arch,
    /// `None` when not known.
    pub efa: Option<bool>,
    pub source: Source,
    pub verified: bool,
}

impl Entry {
    fn from_catalog(t: &InstanceType) -> Self {
        Self {
            instance_type: t.name.to_owned(),
            gpu_model: t.gpu_model.to_owned(),
            vendor: t.vendor,
            gpu_count: t.gpu_count,
            gpu_memory_mib: t.gpu_memory_mib,
            mig_capable: t.mig_capable(),
            mig_profiles: t.mig.map(|m| m.profiles.to_vec()).unwrap_or_default(),
            architecture: t.architecture,
            efa: t.efa_interfaces.map(|n| n > 0),
            source: t.source,
            verified: t.verified(),
        }
    }

    /// EC2's own figures replace the catalog's; MIG geometry stays the catalog's.
    fn refresh(&mut self, live: &LiveInstanceType, mig: Option<&MigGpu>) {
        self.gpu_count = live.gpu_count;
        self.gpu_memory_mib = live.gpu_memory_mib.or(self.gpu_memory_mib);
        self.architecture = live.architecture;
        self.efa = Some(live.efa_interfaces > 0);
        self.source = Source::Ec2DescribeInstanceTypes;
        self.verified = mig.is_none_or(|m| m.source.verified());
    }
}

/// The catalog rows matching `filter`, refreshed with `live` when given.
/// Types EC2 reports that the catalog lacks are added; their MIG geometry is
/// borrowed from a catalog type with the same GPU model and memory, if any.
pub fn entries(filter: &super::Filter, live: Option<&[LiveInstanceType]>) -> Vec<Entry> {
    let mut rows: Vec<Entry> = Vec::new();
    for t in instance_types() {
        let mut e = Entry::from_catalog(t);
        if let Some(l) = live.and_then(|l| l.iter().find(|l| l.name == t.name)) {
            e.refresh(l, t.mig);
        }
        rows.push(e);
    }
    for l in live.unwrap_or_default() {
        if super::instance_type(&l.name).is_some() {
            continue;
        }
        let twin = instance_types().iter().find(|t| {
            t.vendor == l.manufacturer.vendor()
                && t.gpu_model.eq_ignore_ascii_case(&l.gpu_model)
                && (l.gpu_memory_mib.is_none() || t.gpu_memory_mib == l.gpu_memory_mib)
        });
        let mig = twin.and_then(|t| t.mig);
        let mut e = Entry {
            instance_type: l.name.clone(),
            gpu_model: twin.map_or_else(|| l.gpu_model.clone(), |t| t.gpu_model.to_owned()),
            vendor: l.manufacturer.vendor(),
            gpu_count: 0,
            gpu_memory_mib: None,
            mig_capable: mig.is_some(),
            mig_profiles: mig.map(|m| m.profiles.to_vec()).unwrap_or_default(),
            architecture: l.architecture,
            efa: None,
            source: Source::Ec2DescribeInstanceTypes,
            verified: true,
        };
        e.refresh(l, mig);
        rows.push(e);
    }
    rows.retain(|e| filter.matches_entry(e));
    rows.sort_by(|a, b| sort_key(&a.instance_type).cmp(&sort_key(&b.instance_type)));
    rows
}

/// Family, then size as EC2 orders them: `large` < `xlarge` < `2xlarge` < … < `metal`.
fn sort_key(name: &str) -> (&str, u32, &str) {
    let (family, size) = name.split_once('.').unwrap_or((name, ""));
    let rank = match size {
        "metal" => u32::MAX,
        "large" => 1,
        "xlarge" => 2,
        s => s
            .strip_suffix("xlarge")
            .and_then(|n| n.parse::<u32>().ok())
            .map_or(u32::MAX - 1, |n| n * 2),
    };
    (family, rank, size)
}

impl super::Filter {
    pub fn matches_entry(&self, e: &Entry) -> bool {
        self.gpu_model
            .as_deref()
            .is_none_or(|m| e.gpu_model.eq_ignore_ascii_case(m.trim()))
            && self.mig_capable.is_none_or(|m| e.mig_capable == m)
            && self.vendor.is_none_or(|v| e.vendor == v)
            && self
                .min_gpu_memory_mib
                .is_none_or(|min| e.gpu_memory_mib.is_some_and(|mib| u64::from(mib) >= min))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Filter;

    fn live(name: &str, model: &str, count: u32, mib: u32) -> LiveInstanceType {
        LiveInstanceType {
            name: name.into(),
            gpu_model: model.into(),
            manufacturer: Manufacturer::Nvidia,
            gpu_count: count,
            gpu_memory_mib: Some(mib),
            architecture: Arch::X86_64,
            efa_interfaces: 1,
        }
    }

    #[test]
    fn offline_rows_are_the_catalog() {
        let rows = entries(
            &Filter {
                gpu_model: Some("H200".into()),
                ..Filter::default()
            },
            None,
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].instance_type, "p5en.48xlarge");
        assert_eq!(rows[1].source, Source::KarpenterInstanceTypes);
        assert_eq!(rows[1].mig_profiles.len(), 7);
    }

    #[test]
    fn ec2_figures_win_and_unknown_types_are_added() {
        let live = [
            live("p5.48xlarge", "H100", 8, 81_920),
            live("p5.24xlarge", "h100", 4, 81_920),
        ];
        let rows = entries(
            &Filter {
                gpu_model: Some("H100".into()),
                ..Filter::default()
            },
            Some(&live),
        );
        let names: Vec<_> = rows.iter().map(|r| r.instance_type.as_str()).collect();
        assert_eq!(names, ["p5.4xlarge", "p5.24xlarge", "p5.48xlarge"]);
        let new = &rows[1];
        assert_eq!(
            (new.gpu_model.as_str(), new.gpu_count, new.mig_capable),
            ("H100", 4, true)
        );
        assert_eq!(new.source, Source::Ec2DescribeInstanceTypes);
        assert_eq!(rows[2].source, Source::Ec2DescribeInstanceTypes);
        // Not reported by EC2: stays as the catalog has it.
        assert_eq!(rows[0].source, Source::KarpenterInstanceTypes);
    }

    #[test]
    fn new_neuron_types_from_ec2_are_neuron_rows() {
        let live = [LiveInstanceType {
            manufacturer: Manufacturer::Aws,
            gpu_memory_mib: None,
            ..live("trn2.3xlarge", "Trainium2", 1, 0)
        }];
        let rows = entries(&Filter::default(), Some(&live));
        let row = rows.iter().find(|r| r.instance_type == "trn2.3xlarge").unwrap();
        assert_eq!(
            (row.vendor, row.gpu_model.as_str(), row.mig_capable),
            (Vendor::Neuron, "Trainium2", false)
        );
        let p5 = rows.iter().find(|r| r.instance_type == "p5.48xlarge").unwrap();
        assert_eq!(p5.vendor, Vendor::Nvidia);
    }

    #[test]
    fn unknown_gpu_models_are_not_assumed_mig_capable() {
        let live = [live("x9.xlarge", "Z900", 1, 1000)];
        let rows = entries(&Filter::default(), Some(&live));
        let row = rows.iter().find(|r| r.instance_type == "x9.xlarge").unwrap();
        assert!(!row.mig_capable);
    }
}
