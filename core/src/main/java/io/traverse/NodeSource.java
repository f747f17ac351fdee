package io.traverse;

import io.traverse.node.LocalNode;
import java.io.IOException;

/** Where a factory gets its node: a given one, or the default node started on first use. */
@FunctionalInterface
interface NodeSource {
    LocalNode node() throws IOException;
}
