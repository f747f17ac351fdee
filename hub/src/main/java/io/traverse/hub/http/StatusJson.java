package io.traverse.hub.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.KeyDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.traverse.hub.HubStatus;
import io.traverse.identity.NodeId;

/**
 * {@link HubStatus} as a JSON document (ids as their text, field names as in the record), and
 * back: {@code traverse status} reads what a hub's {@code /status} serves. Fields a newer hub adds
 * are ignored when reading.
 */
public final class StatusJson {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new SimpleModule("traverse-ids")
                    .addSerializer(NodeId.class, ToStringSerializer.instance)
                    .addDeserializer(NodeId.class, new JsonDeserializer<>() {
                        @Override
                        public NodeId deserialize(JsonParser parser, DeserializationContext context)
                                throws java.io.IOException {
                            return NodeId.of(parser.getValueAsString());
                        }
                    })
                    .addKeyDeserializer(NodeId.class, new KeyDeserializer() {
                        @Override
                        public Object deserializeKey(String key, DeserializationContext context) {
                            return NodeId.of(key);
                        }
                    }))
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private StatusJson() {}

    public static String write(HubStatus status) {
        try {
            return MAPPER.writeValueAsString(status);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("status cannot be written as JSON", e);
        }
    }

    /**
     * Reads a status document.
     *
     * @throws IllegalArgumentException if {@code json} is not one, with the parser's reason
     */
    public static HubStatus read(String json) {
        try {
            return MAPPER.readValue(json, HubStatus.class);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new IllegalArgumentException("not a hub status document: " + e.getMessage(), e);
        }
    }
}
