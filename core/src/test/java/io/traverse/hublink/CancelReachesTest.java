package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A caller that stops waiting for a hub lookup frees the request it was waiting on. */
class CancelReachesTest {
    @Test
    void cancellingTheDerivedFutureCancelsTheRequestAndNothingElseDoes() {
        CompletableFuture<String> request = new CompletableFuture<>();
        CompletableFuture<Integer> derived = NodeHubDirectory.cancelReaches(request, request.thenApply(String::length));
        derived.cancel(false);
        assertThat(request).isCancelled();

        CompletableFuture<String> answered = new CompletableFuture<>();
        CompletableFuture<Integer> fromAnswer =
                NodeHubDirectory.cancelReaches(answered, answered.thenApply(String::length));
        answered.complete("four");
        assertThat(fromAnswer.join()).isEqualTo(4);
        fromAnswer.cancel(false); // too late: nothing changes
        assertThat(answered).isNotCancelled().isCompletedWithValue("four");

        CompletableFuture<String> failed = new CompletableFuture<>();
        CompletableFuture<Integer> fromFailure =
                NodeHubDirectory.cancelReaches(failed, failed.thenApply(String::length));
        failed.completeExceptionally(new IllegalStateException("link lost"));
        assertThat(fromFailure).isCompletedExceptionally();
        assertThat(failed).isNotCancelled();
    }
}
