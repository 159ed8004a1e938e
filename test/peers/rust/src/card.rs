//! The public and extended Agent Cards.
//!
//! Served unsigned: the Rust SDK has a field for card signatures but no
//! signer of its own, so there is no JWK Set route either.

use a2a::{
    AgentCapabilities, AgentCard, AgentInterface, AgentProvider, AgentSkill,
    TRANSPORT_PROTOCOL_GRPC, TRANSPORT_PROTOCOL_HTTP_JSON, TRANSPORT_PROTOCOL_JSONRPC,
};

fn skill(id: &str, name: &str, description: &str, tags: &[&str]) -> AgentSkill {
    AgentSkill {
        id: id.to_string(),
        name: name.to_string(),
        description: description.to_string(),
        tags: tags.iter().map(|tag| tag.to_string()).collect(),
        examples: None,
        input_modes: None,
        output_modes: None,
        security_requirements: None,
    }
}

fn interface(url: String, binding: &str, version: &str) -> AgentInterface {
    let mut interface = AgentInterface::new(url, binding);
    interface.protocol_version = version.to_string();
    interface
}

/// The capabilities the card declares; the request handler is given the same
/// value so what it enforces matches what the card says.
pub fn capabilities() -> AgentCapabilities {
    AgentCapabilities {
        streaming: Some(true),
        push_notifications: Some(true),
        extensions: None,
        extended_agent_card: Some(true),
    }
}

pub fn public_card(http_port: u16, grpc_port: u16) -> AgentCard {
    let origin = format!("http://127.0.0.1:{http_port}");
    AgentCard {
        name: "a2a-connect rust peer".to_string(),
        description: "Scripted test agent for the a2a-connect interop tests, \
                      served by the Rust A2A SDK."
            .to_string(),
        version: "1.0.0".to_string(),
        // Only A2A 1.0: the SDK serves no 0.3 surface.
        supported_interfaces: vec![
            interface(
                format!("{origin}/a2a/jsonrpc"),
                TRANSPORT_PROTOCOL_JSONRPC,
                "1.0",
            ),
            interface(
                format!("{origin}/a2a/rest"),
                TRANSPORT_PROTOCOL_HTTP_JSON,
                "1.0",
            ),
            // gRPC interfaces are host:port; the SDK strips any http:// anyway.
            interface(
                format!("127.0.0.1:{grpc_port}"),
                TRANSPORT_PROTOCOL_GRPC,
                "1.0",
            ),
        ],
        capabilities: capabilities(),
        default_input_modes: vec!["text/plain".to_string()],
        default_output_modes: vec!["text/plain".to_string()],
        skills: vec![
            skill(
                "echo",
                "Echo",
                "Replies with a message holding the text after `echo`.",
                &["echo", "message"],
            ),
            skill(
                "count",
                "Count",
                "Runs a task streaming n chunks of the `result` artifact, optionally paced.",
                &["task", "artifact", "streaming"],
            ),
            skill(
                "lifecycle",
                "Lifecycle",
                "Drives a task through hold, input, fail and reject states.",
                &["task", "state"],
            ),
        ],
        provider: Some(AgentProvider {
            organization: "a2a-connect".to_string(),
            url: origin,
        }),
        documentation_url: None,
        icon_url: None,
        security_schemes: None,
        security_requirements: None,
        signatures: None,
    }
}

/// The extended card: the public one plus a skill only it lists.
pub fn extended_card(public: &AgentCard) -> AgentCard {
    let mut card = public.clone();
    card.description.push_str(" Extended card.");
    card.skills.push(skill(
        "secret-skill",
        "Secret skill",
        "Listed only on the extended card.",
        &["extended"],
    ));
    card
}
