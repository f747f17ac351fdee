package io.traverse.cli;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.config.ConfigKey;
import io.traverse.config.ConfigSources;
import java.io.IOException;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The node a pipe command runs: configured like any Traverse node (system properties,
 * {@code TRAVERSE_*} environment, {@code traverse.properties}), with these options on top.
 */
public final class NodeOptions {
    @Option(
            names = "--hub",
            paramLabel = "HOST:PORT",
            split = ",",
            description = "hub to link to (repeatable; default: traverse.hubs, else discovery on the local network)")
    public List<String> hubs = List.of();

    @Mixin
    TokenOptions tokens = new TokenOptions();

    public Traverse start() throws IOException {
        return Traverse.start(configBuilder().build());
    }

    /** The node's configuration with these options applied, to build on. */
    public TraverseConfig.Builder configBuilder() throws IOException {
        TraverseConfig.Builder config =
                TraverseConfig.builderFrom(ConfigSources.collect()).jdkProxyProperties(System.getProperties());
        if (!hubs.isEmpty()) {
            config.set(ConfigKey.HUBS, String.join(",", hubs), "--hub");
        }
        if (tokens.tokenFile() != null) {
            config.token(TokenFile.read(tokens.tokenFile()));
        } else if (tokens.token() != null) {
            config.token(tokens.token());
        }
        return config;
    }
}
