package io.traverse.wire;

import java.util.List;

/** The hub's answer to LOOKUP: a status and text entries whose format depends on the kind asked. */
public record LookupResult(int requestId, ResultStatus status, List<String> entries) implements LinkMessage {
    public LookupResult {
        FieldChecks.present("status", status);
        entries = FieldChecks.list("entries", entries, LinkLimits.MAX_LIST);
        for (String entry : entries) {
            FieldChecks.text("entry", entry, LinkLimits.MAX_LOOKUP_ENTRY);
        }
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.LOOKUP_RESULT;
    }
}
