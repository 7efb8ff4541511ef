//! The provider process as Terraform sees it: refusal when run by hand, the
//! handshake line, AutoMTLS pinned to the client certificate, Shutdown, and
//! debug mode. No Terraform CLI here: the harness plays the client.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use eksgpu_acceptance_tests::grpc::{ClientIdentity, ProviderProcess, plaintext_channel};
use eksgpu_acceptance_tests::provider_bin::provider_binary;
use eksgpu_tfplugin::testing::{Empty, ProviderClient, proto};

#[test]
fn run_by_hand_it_says_it_is_a_terraform_plugin() {
    let out = Command::new(provider_binary()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing may reach stdout");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("plugin for Terraform"), "{stderr}");
}

#[test]
fn an_unsupported_protocol_version_is_refused_clearly() {
    let out = Command::new(provider_binary())
        .env(
            eksgpu_tfplugin::handshake::MAGIC_COOKIE_KEY,
            eksgpu_tfplugin::handshake::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "4,5")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("speaks only version 6"));
}

#[tokio::test]
async fn mtls_pins_the_client_certificate_and_shutdown_exits_promptly() {
    let client = ClientIdentity::generate();
    let mut process = ProviderProcess::start(provider_binary(), &client);
    assert!(process.socket.exists());

    let mut provider = process.provider(&client).await;
    let schema = provider
        .get_provider_schema(proto::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(schema.data_source_schemas.contains_key("eksgpu_gpu_catalog"));

    // Another certificate, even one shaped exactly like Terraform's, is refused.
    let stranger = ClientIdentity::generate();
    let refused = match process.channel(&stranger).await {
        Err(_) => true,
        Ok(ch) => ProviderClient::new(ch)
            .get_provider_schema(proto::get_provider_schema::Request {})
            .await
            .is_err(),
    };
    assert!(refused, "a client without the pinned certificate was served");

    // The refused client did not take the server down.
    provider
        .get_provider_schema(proto::get_provider_schema::Request {})
        .await
        .unwrap();

    process.controller(&client).await.shutdown(Empty {}).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = process.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "provider did not exit after Shutdown");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert!(status.success());
    assert!(!process.socket.exists(), "socket file left behind");
}

#[tokio::test]
async fn debug_mode_prints_a_reattach_value_and_serves() {
    let mut child = Command::new(provider_binary())
        .arg("--debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut reader = BufReader::new(stdout);
    let mut reattach = None;
    for _ in 0..20 {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if let Some(v) = line.trim().strip_prefix("export TF_REATTACH_PROVIDERS='") {
            reattach = Some(v.trim_end_matches('\'').to_owned());
            break;
        }
    }
    let reattach: serde_json::Value = serde_json::from_str(&reattach.expect("no TF_REATTACH_PROVIDERS line")).unwrap();
    let entry = &reattach["registry.terraform.io/eksgpu/eksgpu"];
    assert_eq!(entry["ProtocolVersion"], 6);
    assert_eq!(entry["Test"], true);
    let socket = entry["Addr"]["String"].as_str().unwrap().into();
    let mut client = ProviderClient::new(plaintext_channel(socket).await.unwrap());
    let schema = client
        .get_provider_schema(proto::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    assert!(schema.provider.is_some());
    let _ = child.kill();
    let _ = child.wait();
}

/// Terraform 1.12 and later ask every provider for resource identity schemas
/// (plugin protocol 6.9 `GetResourceIdentitySchemas`; `UpgradeResourceIdentity`
/// for stored identities) and take gRPC `Unimplemented` as "no identity"
/// (hashicorp/terraform v1.12.0 internal/plugin6/grpc_provider.go). The
/// provider serves no identity: both must answer exactly that, nothing else.
#[tokio::test]
async fn resource_identity_rpcs_answer_unimplemented() {
    let client = ClientIdentity::generate();
    let process = ProviderProcess::start(provider_binary(), &client);
    let channel = process
        .channel(&client)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    for method in [
        "/tfplugin6.Provider/GetResourceIdentitySchemas",
        "/tfplugin6.Provider/UpgradeResourceIdentity",
    ] {
        let mut grpc = tonic::client::Grpc::new(channel.clone());
        grpc.ready().await.unwrap();
        let status = grpc
            .unary(
                tonic::Request::new(()),
                tonic::codegen::http::uri::PathAndQuery::from_static(method),
                tonic_prost::ProstCodec::<(), ()>::default(),
            )
            .await
            .expect_err(method);
        assert_eq!(status.code(), tonic::Code::Unimplemented, "{method}: {status}");
    }
    // The provider still serves after them.
    let mut provider = process.provider(&client).await;
    provider
        .get_provider_schema(proto::get_provider_schema::Request {})
        .await
        .unwrap();
}
