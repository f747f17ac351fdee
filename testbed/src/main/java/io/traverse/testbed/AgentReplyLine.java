package io.traverse.testbed;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One reply line of a {@link NodeAgent}: {@code WORD ok|failed key=value ... [error=rest of line]}.
 * The {@code error} field comes last and keeps its spaces.
 *
 * @param ok     true for {@code ok}
 * @param fields the key=value pairs in order
 */
record AgentReplyLine(boolean ok, Map<String, String> fields) {

    /** Parses {@code line}, which must start with {@code word}; {@code what} names it in errors. */
    static AgentReplyLine parse(String line, String word, String what) {
        String[] head = line.split(" ", 3);
        if (head.length < 3 || !head[0].equals(word) || !(head[1].equals("ok") || head[1].equals("failed"))) {
            throw new TestbedException("unexpected " + what + " line from node agent: '" + line + "'");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        String rest = head[2];
        while (!rest.isEmpty()) {
            int eq = rest.indexOf('=');
            if (eq < 0) {
                throw new TestbedException("unexpected " + what + " line from node agent: '" + line + "'");
            }
            String key = rest.substring(0, eq);
            if (key.equals("error")) {
                fields.put(key, rest.substring(eq + 1));
                break;
            }
            int space = rest.indexOf(' ', eq);
            fields.put(key, space < 0 ? rest.substring(eq + 1) : rest.substring(eq + 1, space));
            rest = space < 0 ? "" : rest.substring(space + 1);
        }
        return new AgentReplyLine(head[1].equals("ok"), fields);
    }

    String text(String key, String otherwise) {
        return fields.getOrDefault(key, otherwise);
    }

    long number(String key, long otherwise) {
        String v = fields.get(key);
        return v == null ? otherwise : Long.parseLong(v);
    }
}
