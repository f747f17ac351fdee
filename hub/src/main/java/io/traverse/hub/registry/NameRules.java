package io.traverse.hub.registry;

import io.traverse.identity.NodeIdentity;
import java.util.Locale;

/**
 * What a registered name may be: a DNS-style host name (labels of 1-63 letters, digits and '-',
 * not starting or ending with '-', joined by '.'), at most 253 characters, compared without
 * case, and never something a socket factory would read as an address instead (an identity
 * text, or a dotted number such as an IPv4 literal).
 */
public final class NameRules {
    private NameRules() {}

    /** The canonical (lower case) form of a name. */
    public static String canonical(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /** Null if the name may be registered, else the reason it may not. */
    public static String problem(String name) {
        if (name.isEmpty() || name.length() > 253) {
            return "a name has 1-253 characters";
        }
        String lower = canonical(name);
        for (String label : lower.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63) {
                return "every dot-separated label of a name has 1-63 characters";
            }
            if (label.startsWith("-") || label.endsWith("-")) {
                return "a label of a name may not start or end with '-'";
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')) {
                    return "a name holds only letters, digits, '-' and '.'";
                }
            }
        }
        if (lower.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9')) {
            return "a name may not look like an IP address";
        }
        if (NodeIdentity.looksLikeIdentity(lower)) {
            return "a name may not look like a node identity (tv1...)";
        }
        return null;
    }
}
