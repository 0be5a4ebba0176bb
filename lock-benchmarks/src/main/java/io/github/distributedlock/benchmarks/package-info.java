/**
 * JMH benchmarks of this library against its peers on one Redis; {@link BenchmarkRunner} runs them all and
 * writes {@code RESULTS.md}.
 */
package io.github.distributedlock.benchmarks;
