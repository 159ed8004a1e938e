package dev.a2aconnect.peer;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.quarkus.runtime.ShutdownEvent;

import io.a2a.server.ExtendedAgentCard;
import io.a2a.server.PublicAgentCard;
import io.a2a.server.agentexecution.AgentExecutor;
import io.a2a.spec.AgentCapabilities;
import io.a2a.spec.AgentCard;
import io.a2a.spec.AgentInterface;
import io.a2a.spec.AgentProvider;
import io.a2a.spec.AgentSkill;
import io.a2a.spec.TransportProtocol;

/**
 * The beans the SDK's reference servers ask for: the executor, the public
 * card and the extended card. The SDK serves JSON-RPC at the origin's root and
 * HTTP+JSON under /v1/ on the same port, so both interfaces name the origin;
 * gRPC listens on a port of its own.
 */
@ApplicationScoped
public class Cards {
    @ConfigProperty(name = "quarkus.http.port")
    int port;

    @ConfigProperty(name = "quarkus.grpc.server.port")
    int grpcPort;

    private final ScriptedExecutor executor = new ScriptedExecutor();

    @Produces
    AgentExecutor executor() {
        return executor;
    }

    /** Held tasks would keep the SDK's executor, which waits 10 s for its threads at shutdown. */
    void onStop(@Observes ShutdownEvent event) {
        executor.releaseAll();
    }

    @Produces
    @PublicAgentCard
    AgentCard publicCard() {
        return card(false);
    }

    @Produces
    @ExtendedAgentCard
    AgentCard extendedCard() {
        return card(true);
    }

    private AgentCard card(boolean extended) {
        String origin = "http://127.0.0.1:" + port;
        List<AgentSkill> skills = new ArrayList<>(List.of(
                skill("echo", "Echo", "Replies with a direct message repeating the text after `echo`.",
                        List.of("test", "message"), List.of("echo hello")),
                skill("count", "Count", "Runs a task that streams n chunks of one artifact, then completes.",
                        List.of("test", "task", "streaming"), List.of("count 3", "count 5 every 100")),
                skill("lifecycle", "Task lifecycle", "`hold` waits for cancel; `input`, `fail` and `reject` end in those states.",
                        List.of("test", "task"), List.of("hold", "input", "fail", "reject"))));
        String description = "Scripted test agent on the official Java A2A SDK (a2a-java 0.3.3.Final).";
        if (extended) {
            skills.add(skill("secret-skill", "Secret skill", "Listed only on the extended agent card.",
                    List.of("test", "extended"), List.of()));
            description += " Extended card.";
        }
        return new AgentCard.Builder()
                .name("a2a-connect java peer")
                .description(description)
                .url(origin)
                .preferredTransport(TransportProtocol.JSONRPC.asString())
                .additionalInterfaces(List.of(
                        new AgentInterface(TransportProtocol.JSONRPC.asString(), origin),
                        new AgentInterface(TransportProtocol.HTTP_JSON.asString(), origin),
                        // gRPC clients dial a target, not a URL: host:port.
                        new AgentInterface(TransportProtocol.GRPC.asString(), "127.0.0.1:" + grpcPort)))
                .provider(new AgentProvider("a2a-connect", origin))
                .version("1.0.0")
                .capabilities(new AgentCapabilities.Builder().streaming(true).pushNotifications(true).build())
                .supportsAuthenticatedExtendedCard(true)
                .defaultInputModes(List.of("text/plain"))
                .defaultOutputModes(List.of("text/plain"))
                .skills(skills)
                .protocolVersion("0.3.0")
                .build();
    }

    private static AgentSkill skill(String id, String name, String description, List<String> tags, List<String> examples) {
        return new AgentSkill.Builder().id(id).name(name).description(description).tags(tags).examples(examples).build();
    }
}
