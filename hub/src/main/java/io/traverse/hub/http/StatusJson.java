package io.traverse.hub.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.traverse.hub.HubStatus;
import io.traverse.identity.NodeId;

/** {@link HubStatus} as a JSON document (ids as their text, field names as in the record). */
public final class StatusJson {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new SimpleModule("traverse-ids").addSerializer(NodeId.class, ToStringSerializer.instance))
            .enable(SerializationFeature.INDENT_OUTPUT);

    private StatusJson() {
    }

    public static String write(HubStatus status) {
        try {
            return MAPPER.writeValueAsString(status);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("status cannot be written as JSON", e);
        }
    }
}
