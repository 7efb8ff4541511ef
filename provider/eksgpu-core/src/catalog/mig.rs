//! MIG geometry per GPU: the profiles NVIDIA defines (name, memory, compute
//! slices, how many fit on one GPU) and the `all-balanced` layout.
//!
//! Transcribed from ../shared/research/mig_profiles.csv and domain.md §2.1–§2.2
//! (NVIDIA go-nvml mock GPU tables, the GPU Operator's default mig-parted
//! ConfigMap, and SageMaker HyperPod's profile maps; each row verified by at
//! least two of them unless its source says otherwise).

use super::{MigGpu, MigProfile, Source};

pub(super) static A100_40GB: MigGpu = MigGpu {
    name: "A100-SXM4-40GB",
    compute_slices: 7,
    max_instances: 7,
    profiles: &[
        MigProfile {
            name: "1g.5gb",
            memory_gb: 5,
            compute_slices: 1,
            max_instances: 7,
        },
        MigProfile {
            name: "1g.5gb+me",
            memory_gb: 5,
            compute_slices: 1,
            max_instances: 1,
        },
        MigProfile {
            name: "1g.10gb",
            memory_gb: 10,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "2g.10gb",
            memory_gb: 10,
            compute_slices: 2,
            max_instances: 3,
        },
        MigProfile {
            name: "3g.20gb",
            memory_gb: 20,
            compute_slices: 3,
            max_instances: 2,
        },
        MigProfile {
            name: "4g.20gb",
            memory_gb: 20,
            compute_slices: 4,
            max_instances: 1,
        },
        MigProfile {
            name: "7g.40gb",
            memory_gb: 40,
            compute_slices: 7,
            max_instances: 1,
        },
    ],
    balanced: &[("1g.5gb", 2), ("2g.10gb", 1), ("3g.20gb", 1)],
    source: Source::MigThreeSources,
};

pub(super) static A100_80GB: MigGpu = MigGpu {
    name: "A100-SXM4-80GB",
    compute_slices: 7,
    max_instances: 7,
    profiles: &[
        MigProfile {
            name: "1g.10gb",
            memory_gb: 10,
            compute_slices: 1,
            max_instances: 7,
        },
        MigProfile {
            name: "1g.10gb+me",
            memory_gb: 10,
            compute_slices: 1,
            max_instances: 1,
        },
        MigProfile {
            name: "1g.20gb",
            memory_gb: 20,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "2g.20gb",
            memory_gb: 20,
            compute_slices: 2,
            max_instances: 3,
        },
        MigProfile {
            name: "3g.40gb",
            memory_gb: 40,
            compute_slices: 3,
            max_instances: 2,
        },
        MigProfile {
            name: "4g.40gb",
            memory_gb: 40,
            compute_slices: 4,
            max_instances: 1,
        },
        MigProfile {
            name: "7g.80gb",
            memory_gb: 80,
            compute_slices: 7,
            max_instances: 1,
        },
    ],
    balanced: &[("1g.10gb", 2), ("2g.20gb", 1), ("3g.40gb", 1)],
    source: Source::MigThreeSources,
};

pub(super) static H100_80GB: MigGpu = MigGpu {
    name: "H100-80GB-HBM3",
    compute_slices: 7,
    max_instances: 7,
    profiles: &[
        MigProfile {
            name: "1g.10gb",
            memory_gb: 10,
            compute_slices: 1,
            max_instances: 7,
        },
        MigProfile {
            name: "1g.10gb+me",
            memory_gb: 10,
            compute_slices: 1,
            max_instances: 1,
        },
        MigProfile {
            name: "1g.20gb",
            memory_gb: 20,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "2g.20gb",
            memory_gb: 20,
            compute_slices: 2,
            max_instances: 3,
        },
        MigProfile {
            name: "3g.40gb",
            memory_gb: 40,
            compute_slices: 3,
            max_instances: 2,
        },
        MigProfile {
            name: "4g.40gb",
            memory_gb: 40,
            compute_slices: 4,
            max_instances: 1,
        },
        MigProfile {
            name: "7g.80gb",
            memory_gb: 80,
            compute_slices: 7,
            max_instances: 1,
        },
    ],
    balanced: &[("1g.10gb", 2), ("2g.20gb", 1), ("3g.40gb", 1)],
    source: Source::MigThreeSources,
};

pub(super) static H200_141GB: MigGpu = MigGpu {
    name: "H200-141GB",
    compute_slices: 7,
    max_instances: 7,
    profiles: &[
        MigProfile {
            name: "1g.18gb",
            memory_gb: 18,
            compute_slices: 1,
            max_instances: 7,
        },
        MigProfile {
            name: "1g.18gb+me",
            memory_gb: 18,
            compute_slices: 1,
            max_instances: 1,
        },
        MigProfile {
            name: "1g.35gb",
            memory_gb: 35,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "2g.35gb",
            memory_gb: 35,
            compute_slices: 2,
            max_instances: 3,
        },
        MigProfile {
            name: "3g.71gb",
            memory_gb: 71,
            compute_slices: 3,
            max_instances: 2,
        },
        MigProfile {
            name: "4g.71gb",
            memory_gb: 71,
            compute_slices: 4,
            max_instances: 1,
        },
        MigProfile {
            name: "7g.141gb",
            memory_gb: 141,
            compute_slices: 7,
            max_instances: 1,
        },
    ],
    balanced: &[("1g.18gb", 2), ("2g.35gb", 1), ("3g.71gb", 1)],
    source: Source::MigThreeSources,
};

pub(super) static B200_180GB: MigGpu = MigGpu {
    name: "B200-180GB",
    compute_slices: 7,
    max_instances: 7,
    profiles: &[
        MigProfile {
            name: "1g.23gb",
            memory_gb: 23,
            compute_slices: 1,
            max_instances: 7,
        },
        MigProfile {
            name: "1g.23gb+me",
            memory_gb: 23,
            compute_slices: 1,
            max_instances: 1,
        },
        MigProfile {
            name: "1g.45gb",
            memory_gb: 45,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "2g.45gb",
            memory_gb: 45,
            compute_slices: 2,
            max_instances: 3,
        },
        MigProfile {
            name: "3g.90gb",
            memory_gb: 90,
            compute_slices: 3,
            max_instances: 2,
        },
        MigProfile {
            name: "4g.90gb",
            memory_gb: 90,
            compute_slices: 4,
            max_instances: 1,
        },
        MigProfile {
            name: "7g.180gb",
            memory_gb: 180,
            compute_slices: 7,
            max_instances: 1,
        },
    ],
    balanced: &[("1g.23gb", 2), ("2g.45gb", 1), ("3g.90gb", 1)],
    source: Source::MigThreeSources,
};

pub(super) static GB200_186GB: MigGpu = MigGpu {
    name: "GB200-186GB",
    compute_slices: 7,
    max_instances: 7,
    profiles: &[
        MigProfile {
            name: "1g.23gb",
            memory_gb: 23,
            compute_slices: 1,
            max_instances: 7,
        },
        MigProfile {
            name: "1g.23gb+me",
            memory_gb: 23,
            compute_slices: 1,
            max_instances: 1,
        },
        MigProfile {
            name: "1g.47gb",
            memory_gb: 47,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "2g.47gb",
            memory_gb: 47,
            compute_slices: 2,
            max_instances: 3,
        },
        MigProfile {
            name: "3g.93gb",
            memory_gb: 93,
            compute_slices: 3,
            max_instances: 2,
        },
        MigProfile {
            name: "4g.93gb",
            memory_gb: 93,
            compute_slices: 4,
            max_instances: 1,
        },
        MigProfile {
            name: "7g.186gb",
            memory_gb: 186,
            compute_slices: 7,
            max_instances: 1,
        },
    ],
    balanced: &[("1g.23gb", 2), ("2g.47gb", 1), ("3g.93gb", 1)],
    source: Source::MigTwoSources,
};

pub(super) static B300_288GB: MigGpu = MigGpu {
    name: "B300-288GB",
    compute_slices: 7,
    max_instances: 7,
    profiles: &[
        MigProfile {
            name: "1g.34gb",
            memory_gb: 34,
            compute_slices: 1,
            max_instances: 7,
        },
        MigProfile {
            name: "1g.34gb+me",
            memory_gb: 34,
            compute_slices: 1,
            max_instances: 1,
        },
        MigProfile {
            name: "1g.67gb",
            memory_gb: 67,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "2g.67gb",
            memory_gb: 67,
            compute_slices: 2,
            max_instances: 3,
        },
        MigProfile {
            name: "3g.135gb",
            memory_gb: 135,
            compute_slices: 3,
            max_instances: 2,
        },
        MigProfile {
            name: "4g.135gb",
            memory_gb: 135,
            compute_slices: 4,
            max_instances: 1,
        },
        MigProfile {
            name: "7g.269gb",
            memory_gb: 269,
            compute_slices: 7,
            max_instances: 1,
        },
    ],
    balanced: &[("1g.34gb", 2), ("2g.67gb", 1), ("3g.135gb", 1)],
    source: Source::MigTwoSources,
};

pub(super) static RTX_PRO_6000_96GB: MigGpu = MigGpu {
    name: "RTX-PRO-6000-96GB",
    compute_slices: 4,
    max_instances: 4,
    profiles: &[
        MigProfile {
            name: "1g.24gb",
            memory_gb: 24,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "1g.24gb+gfx",
            memory_gb: 24,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "1g.24gb-me",
            memory_gb: 24,
            compute_slices: 1,
            max_instances: 4,
        },
        MigProfile {
            name: "1g.24gb+me.all",
            memory_gb: 24,
            compute_slices: 1,
            max_instances: 1,
        },
        MigProfile {
            name: "2g.48gb",
            memory_gb: 48,
            compute_slices: 2,
            max_instances: 2,
        },
        MigProfile {
            name: "2g.48gb+gfx",
            memory_gb: 48,
            compute_slices: 2,
            max_instances: 2,
        },
        MigProfile {
            name: "2g.48gb-me",
            memory_gb: 48,
            compute_slices: 2,
            max_instances: 2,
        },
        MigProfile {
            name: "2g.48gb+me.all",
            memory_gb: 48,
            compute_slices: 2,
            max_instances: 1,
        },
        MigProfile {
            name: "4g.96gb",
            memory_gb: 96,
            compute_slices: 4,
            max_instances: 1,
        },
        MigProfile {
            name: "4g.96gb+gfx",
            memory_gb: 96,
            compute_slices: 4,
            max_instances: 1,
        },
    ],
    balanced: &[("1g.24gb", 2), ("2g.48gb", 1)],
    source: Source::GpuOperatorConfigMap,
};

/// NVIDIA lists the RTX PRO 4500 Blackwell as MIG-capable with at most two
/// instances, but its profile names are not published in any source we hold:
/// MIG layouts on g7 cannot be validated and are reported as unverified.
pub(super) static RTX_PRO_4500_32GB: MigGpu = MigGpu {
    name: "RTX-PRO-4500-32GB",
    compute_slices: 2,
    max_instances: 2,
    profiles: &[],
    balanced: &[],
    source: Source::Unverified,
};
