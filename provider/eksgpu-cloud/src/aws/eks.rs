//! EKS cluster facts and the EKS IAM token for a cluster's API.

use std::time::{Duration, SystemTime};

use aws_credential_types::provider::ProvideCredentials;
use base64::Engine;

use eksgpu_core::eks::{AutoModeFlags, ClusterFacts};

use super::{AwsClients, AwsError, AwsFailure};

/// The header that binds a token to one cluster (aws-iam-authenticator).
const CLUSTER_ID_HEADER: &str = "x-k8s-aws-id";
const TOKEN_PREFIX: &str = "k8s-aws-v1.";

impl AwsClients {
    pub(crate) async fn eks(&self) -> aws_sdk_eks::Client {
        let config = self.sdk_config().await;
        let mut builder = aws_sdk_eks::config::Builder::from(config);
        if let Some(url) = &self.settings.endpoints.eks {
            builder = builder.endpoint_url(url);
        }
        aws_sdk_eks::Client::from_conf(builder.build())
    }

    /// `eks:DescribeCluster`, now (also refreshing the per-process copy).
    pub async fn describe_cluster(&self, name: &str) -> Result<ClusterFacts, AwsError> {
        let facts = self.fetch_cluster(name).await?;
        self.clusters.lock().await.insert(name.to_owned(), facts.clone());
        Ok(facts)
    }

    /// What `DescribeCluster` said about `name` earlier in this process, or a
    /// fresh answer: one call per cluster per run for what does not change
    /// under the provider (endpoint, CA, version). Concurrent first callers
    /// wait for one call instead of making their own.
    pub async fn cluster(&self, name: &str) -> Result<ClusterFacts, AwsError> {
        let mut known = self.clusters.lock().await;
        if let Some(f) = known.get(name) {
            return Ok(f.clone());
        }
        let facts = self.fetch_cluster(name).await?;
        known.insert(name.to_owned(), facts.clone());
        Ok(facts)
    }

    /// As [`AwsClients::cluster`], for a look the caller can do without (the device managers a
    /// plan reads): one attempt, no retries, so an endpoint that cannot be reached fails at once
    /// instead of after the SDK's backoff. A success is kept for the rest of the process.
    pub async fn cluster_once(&self, name: &str) -> Result<ClusterFacts, AwsError> {
        if let Some(f) = self.clusters.lock().await.get(name) {
            return Ok(f.clone());
        }
        let facts = self.describe(name, false).await?;
        self.clusters.lock().await.insert(name.to_owned(), facts.clone());
        Ok(facts)
    }

    async fn fetch_cluster(&self, name: &str) -> Result<ClusterFacts, AwsError> {
        self.describe(name, true).await
    }

    async fn describe(&self, name: &str, retry: bool) -> Result<ClusterFacts, AwsError> {
        let call = self.eks().await.describe_cluster().name(name);
        let sent = if retry {
            call.send().await
        } else {
            let once =
                aws_sdk_eks::config::Builder::new().retry_config(aws_sdk_eks::config::retry::RetryConfig::disabled());
            call.customize().config_override(once).send().await
        };
        let out = sent.map_err(|e| self.sdk_error("eks:DescribeCluster", e))?;
        tracing::debug!(cluster = name, "described cluster");
        Ok(out.cluster().map_or_else(
            || ClusterFacts {
                name: name.to_owned(),
                ..ClusterFacts::default()
            },
            |c| cluster_facts(name, c),
        ))
    }

    /// `facts` with its VPC's CIDR blocks filled in (`ec2:DescribeVpcs`), when the VPC is known.
    pub async fn with_vpc_cidrs(&self, mut facts: ClusterFacts) -> Result<ClusterFacts, AwsError> {
        if let Some(vpc) = &facts.vpc_id {
            facts.vpc_cidrs = self.vpc_cidrs(vpc).await?;
        }
        Ok(facts)
    }

    /// `ec2:DescribeVpcs`: the IPv4 CIDR blocks associated with a VPC.
    pub async fn vpc_cidrs(&self, vpc_id: &str) -> Result<Vec<String>, AwsError> {
        let out = self
            .ec2()
            .await
            .describe_vpcs()
            .vpc_ids(vpc_id)
            .send()
            .await
            .map_err(|e| self.sdk_error("ec2:DescribeVpcs", e))?;
        let mut cidrs = Vec::new();
        for vpc in out.vpcs() {
            for a in vpc.cidr_block_association_set() {
                let associated = a
                    .cidr_block_state()
                    .and_then(|s| s.state())
                    .is_none_or(|s| s.as_str() == "associated");
                if let Some(c) = a.cidr_block().filter(|_| associated)
                    && !cidrs.iter().any(|x| x == c)
                {
                    cidrs.push(c.to_owned());
                }
            }
            if let Some(c) = vpc.cidr_block()
                && !cidrs.iter().any(|x| x == c)
            {
                cidrs.push(c.to_owned());
            }
        }
        Ok(cidrs)
    }

    /// A bearer token for cluster `name`, made as `aws eks get-token` makes it:
    /// an STS `GetCallerIdentity` URL presigned (60 s) with the `x-k8s-aws-id`
    /// header signed, base64url-encoded behind `k8s-aws-v1.`. The API server's
    /// authenticator calls that URL to learn who we are. No AWS call is made here.
    pub async fn eks_token(&self, name: &str) -> Result<String, AwsError> {
        let config = self.sdk_config().await;
        const OP: &str = "sts:GetCallerIdentity";
        let fail = |message: String| AwsError::local(OP, AwsFailure::Other, message);
        let no_credentials = |message: String| AwsError::local(OP, AwsFailure::Credentials, message);
        let provider = config
            .credentials_provider()
            .ok_or_else(|| no_credentials("no AWS credentials are configured".into()))?;
        let credentials = provider
            .provide_credentials()
            .await
            .map_err(|e| no_credentials(format!("no AWS credentials: {}", crate::net::chain_text(&e))))?;
        let region = config
            .region()
            .map_or_else(|| "us-east-1".to_owned(), |r| r.to_string());
        let base = self
            .settings
            .endpoints
            .sts
            .clone()
            .unwrap_or_else(|| format!("https://sts.{region}.amazonaws.com"));
        let url = format!(
            "{}/?Action=GetCallerIdentity&Version=2011-06-15",
            base.trim_end_matches('/')
        );

        let identity = credentials.into();
        let mut settings = aws_sigv4::http_request::SigningSettings::default();
        settings.signature_location = aws_sigv4::http_request::SignatureLocation::QueryParams;
        settings.expires_in = Some(Duration::from_secs(60));
        let params = aws_sigv4::sign::v4::SigningParams::builder()
            .identity(&identity)
            .region(&region)
            .name("sts")
            .time(SystemTime::now())
            .settings(settings)
            .build()
            .map_err(|e| fail(e.to_string()))?
            .into();
        let headers = [(CLUSTER_ID_HEADER, name)];
        let request = aws_sigv4::http_request::SignableRequest::new(
            "GET",
            &url,
            headers.into_iter(),
            aws_sigv4::http_request::SignableBody::Bytes(&[]),
        )
        .map_err(|e| fail(e.to_string()))?;
        let (instructions, _) = aws_sigv4::http_request::sign(request, &params)
            .map_err(|e| fail(e.to_string()))?
            .into_parts();
        let mut presigned = url;
        for (k, v) in instructions.params() {
            presigned.push('&');
            presigned.push_str(k);
            presigned.push('=');
            presigned.extend(percent_encoding::utf8_percent_encode(v, QUERY));
        }
        Ok(format!(
            "{TOKEN_PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(presigned)
        ))
    }
}

/// RFC 3986 unreserved characters stay; everything else is escaped, as SigV4 expects.
const QUERY: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

fn cluster_facts(name: &str, c: &aws_sdk_eks::types::Cluster) -> ClusterFacts {
    let remote = c.remote_network_config();
    let network = c.kubernetes_network_config();
    ClusterFacts {
        name: name.to_owned(),
        arn: c.arn().map(str::to_owned),
        status: c.status().map(|s| eksgpu_core::eks::ClusterStatus::parse(s.as_str())),
        version: c.version().map(str::to_owned),
        endpoint: c.endpoint().map(str::to_owned),
        certificate_authority: c.certificate_authority().and_then(|a| a.data()).map(str::to_owned),
        auto_mode: AutoModeFlags {
            compute: c.compute_config().and_then(|x| x.enabled()),
            block_storage: c
                .storage_config()
                .and_then(|x| x.block_storage())
                .and_then(|x| x.enabled()),
            load_balancing: network
                .and_then(|x| x.elastic_load_balancing())
                .and_then(|x| x.enabled()),
        },
        remote_node_networks: remote
            .map(|r| {
                r.remote_node_networks()
                    .iter()
                    .flat_map(|n| n.cidrs().to_vec())
                    .collect()
            })
            .unwrap_or_default(),
        remote_pod_networks: remote
            .map(|r| {
                r.remote_pod_networks()
                    .iter()
                    .flat_map(|n| n.cidrs().to_vec())
                    .collect()
            })
            .unwrap_or_default(),
        vpc_id: c.resources_vpc_config().and_then(|v| v.vpc_id()).map(str::to_owned),
        subnet_ids: c
            .resources_vpc_config()
            .map(|v| v.subnet_ids().to_vec())
            .unwrap_or_default(),
        vpc_cidrs: Vec::new(),
        service_cidr: network.and_then(|n| n.service_ipv4_cidr()).map(str::to_owned),
        tags: c.tags().map(|t| t.clone().into_iter().collect()).unwrap_or_default(),
    }
}
