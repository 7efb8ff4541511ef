//! Compiles the hand-written protocol files with protox (pure Rust; no `protoc`).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["proto/tfplugin6.proto", "proto/plugin.proto"];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    tonic_prost_build::configure()
        // The client half serves the protocol tests and benchmarks (feature `testing`).
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
