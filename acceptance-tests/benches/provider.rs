//! Benchmarks that print ratios, never assert times (run with
//! `cargo bench -p eksgpu-acceptance-tests`; release build, outside CI):
//!
//! - provider start → handshake line, median of many starts, against the
//!   10 ms target and against spawning `true` (the floor of any process);
//! - RSS after `GetProviderSchema`, against the 30 MB target;
//! - `terraform plan` with 50 `eksgpu_gpu_catalog` data sources, against the
//!   same plan with 50 `terraform_data` resources (Terraform's own floor).

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use eksgpu_acceptance_tests::grpc::{ClientIdentity, ProviderProcess};
use eksgpu_acceptance_tests::provider_bin::provider_binary_release;
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use eksgpu_tfplugin::handshake::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use eksgpu_tfplugin::testing::proto;

const STARTS: usize = 50;
const PLANS: usize = 5;
const N: usize = 50;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn handshake(bin: &std::path::Path, client: &ClientIdentity) -> Duration {
    let mut times = Vec::new();
    for _ in 0..STARTS {
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
        times.push(start.elapsed());
        let _ = child.kill();
        let _ = child.wait();
    }
    median(times)
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

async fn rss_after_schema(bin: &std::path::Path, client: &ClientIdentity) -> f64 {
    let process = ProviderProcess::start(bin, client);
    let mut provider = process.provider(client).await;
    provider
        .get_provider_schema(proto::get_provider_schema::Request {})
        .await
        .unwrap();
    let status = std::fs::read_to_string(format!("/proc/{}/status", process.child.id())).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb / 1024.0
}

fn plan_time(w: &Workdir) -> Duration {
    w.ok(&["plan", "-no-color"]); // warm caches
    median(
        (0..PLANS)
            .map(|_| {
                let start = Instant::now();
                w.ok(&["plan", "-no-color"]);
                start.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let bin = provider_binary_release();
    let client = ClientIdentity::generate();
    let hs = handshake(bin, &client);
    let floor = spawn_floor();
    println!(
        "handshake: median {:.2} ms over {STARTS} starts; {:.2}x the 10 ms target; {:.1}x a bare process spawn ({:.2} ms)",
        ms(hs),
        ms(hs) / 10.0,
        hs.as_secs_f64() / floor.as_secs_f64(),
        ms(floor)
    );

    let rt = tokio::runtime::Runtime::new().unwrap();
    let rss = rt.block_on(rss_after_schema(bin, &client));
    println!(
        "rss after GetProviderSchema: {rss:.1} MB; {:.2}x the 30 MB target",
        rss / 30.0
    );

    let tf = terraform_versions().into_iter().find(|t| t.label == "current").unwrap();
    let header = "terraform {\n  required_providers {\n    eksgpu = { source = \"eksgpu/eksgpu\" }\n  }\n}\nprovider \"eksgpu\" { region = \"us-west-2\" }\n";
    // The floor: the same number of objects of Terraform's own built-in resource.
    let floor_cfg: String = (0..N)
        .map(|i| format!("resource \"terraform_data\" \"d{i}\" {{\n  input = {i}\n}}\n"))
        .collect();
    let floor = Workdir::with_provider(&tf, &floor_cfg, bin);
    floor.init();
    let t_floor = plan_time(&floor);
    // N node strategies, planned from scratch (offline: rendering and rules only).
    let strategies: String = (0..N)
        .map(|i| {
            format!(
                "resource \"eksgpu_node_strategy\" \"s{i}\" {{\n  cluster_name = \"gpu\"\n  name = \"s{i}\"\n  gpu_operator {{}}\n  \
                 pool {{\n    name = \"p{i}\"\n    capacity = \"karpenter\"\n    instance_types = [\"p5.48xlarge\", \"g6e.12xlarge\"]\n    \
                 gpu_limit = 32\n    node_class {{\n      role = \"KarpenterNodeRole\"\n    }}\n  }}\n}}\n"
            )
        })
        .collect();
    let with_strategies = Workdir::with_provider(&tf, &format!("{header}{strategies}"), bin);
    with_strategies.init();
    let t_strategies = plan_time(&with_strategies);
    println!(
        "terraform plan, {N} new objects: eksgpu_node_strategy {:.0} ms vs terraform_data {:.0} ms: ratio {:.2}",
        ms(t_strategies),
        ms(t_floor),
        t_strategies.as_secs_f64() / t_floor.as_secs_f64()
    );
    let catalog: String = (0..N)
        .map(|i| {
            format!(
                "data \"eksgpu_gpu_catalog\" \"c{i}\" {{\n  min_gpu_memory_mib = {}\n}}\n",
                i * 1000
            )
        })
        .collect();
    let with_catalog = Workdir::with_provider(&tf, &format!("{header}{catalog}"), bin);
    with_catalog.init();
    let t_catalog = plan_time(&with_catalog);
    println!(
        "terraform plan, {N} eksgpu_gpu_catalog data sources (each up to 73 rows): {:.0} ms: ratio {:.2} to the floor",
        ms(t_catalog),
        t_catalog.as_secs_f64() / t_floor.as_secs_f64()
    );
}
