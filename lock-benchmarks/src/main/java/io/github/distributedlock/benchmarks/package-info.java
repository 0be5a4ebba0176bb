/**
 * JMH benchmarks and runs of this library against its peers on Redis; {@link ResultsRunner} runs the headline and
 * writes {@code RESULTS.md} with its charts, the other runners one measurement each (see {@code run.sh}).
 */
package io.github.distributedlock.benchmarks;
