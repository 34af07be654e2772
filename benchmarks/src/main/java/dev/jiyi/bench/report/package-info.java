/**
 * Charts of benchmark results for the docs: {@link dev.jiyi.bench.report.Charts#line} draws recall
 * quality or latency against archive size, one line per index and mode, as a PNG.
 */
package dev.jiyi.bench.report;
