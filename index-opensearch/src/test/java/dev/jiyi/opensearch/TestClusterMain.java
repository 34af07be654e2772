package dev.jiyi.opensearch;

/**
 * Starts the tests' three-node cluster in a JVM of its own and prints its address, for benchmarks
 * run beside it ({@code JIYI_INDEX_OPENSEARCH_URL=... jiyi bench recall --index opensearch});
 * docs/operations.md shows the command. Runs until killed.
 */
public final class TestClusterMain {

    private TestClusterMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println(TestCluster.get().url());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
