package io.traverse.testbed;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A testbed of its own for every test: skipped without root ({@link TestbedPrerequisites}),
 * closed after the test whatever happened, and checked to have left no namespace behind.
 *
 * <pre>{@code
 * @RegisterExtension
 * final FreshTestbed testbed = new FreshTestbed();
 * ... testbed.get().site("home", "10.0.0.0/24") ...
 * }</pre>
 */
final class FreshTestbed implements BeforeEachCallback, AfterEachCallback {
    private Testbed testbed;

    @Override
    public void beforeEach(ExtensionContext context) {
        TestbedPrerequisites.require();
        testbed = Testbed.create();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Testbed closing = testbed;
        testbed = null;
        if (closing != null) {
            closing.close();
            TestbedPrerequisites.assertRemoved(closing);
        }
    }

    /** This test's testbed. */
    Testbed get() {
        if (testbed == null) {
            throw new IllegalStateException("the testbed exists only while a test runs");
        }
        return testbed;
    }
}
