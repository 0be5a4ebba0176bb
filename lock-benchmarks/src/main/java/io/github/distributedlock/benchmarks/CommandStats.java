package io.github.distributedlock.benchmarks;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code INFO commandstats} since the last {@code CONFIG RESETSTAT}, parsed: calls and microseconds per
 * command, and the two ways the runners count them. Immutable.
 * @param calls calls per command (as Redis names it: {@code evalsha}, {@code config|resetstat}), sorted by name
 * @param micros microseconds Redis spent per command
 */
record CommandStats(Map<String, Long> calls, Map<String, Long> micros) {

	private static final Pattern MICROS = Pattern.compile(",usec=(\\d+)");

	/**
	 * Parses the reply of {@code INFO commandstats}.
	 * @param info the reply
	 * @return every command's calls and microseconds
	 */
	static CommandStats parse(String info) {
		Map<String, Long> calls = new TreeMap<>();
		Map<String, Long> micros = new TreeMap<>();
		for (String line : info.split("\r?\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			String command = line.substring("cmdstat_".length(), line.indexOf(':'));
			calls.put(command, Long.parseLong(line.replaceAll("^[^:]+:calls=(\\d+),.*$", "$1")));
			Matcher usec = MICROS.matcher(line);
			micros.put(command, usec.find() ? Long.parseLong(usec.group(1)) : 0);
		}
		return new CommandStats(calls, micros);
	}

	/**
	 * The count of a lock+unlock (or acquire+release) pair: the requests clients sent (script calls and other
	 * top-level commands), the commands run inside scripts, and the microseconds Redis spent in scripts; the
	 * INFO and CONFIG RESETSTAT of the count itself left out.
	 * @return requests, commands inside scripts, script microseconds
	 */
	long[] requestsInsideScriptMicros() {
		long requests = 0;
		long inside = 0;
		long scriptMicros = 0;
		for (Map.Entry<String, Long> entry : this.calls.entrySet()) {
			String command = entry.getKey();
			long calls = entry.getValue();
			if (command.equals("info") || command.equals("config|resetstat")) {
				continue;
			}
			if (command.startsWith("eval") || command.startsWith("fcall")) {
				scriptMicros += this.micros.get(command);
			}
			if (command.startsWith("eval") || command.startsWith("fcall") || command.equals("ping")
					|| command.contains("subscribe") || command.equals("hello") || command.startsWith("client")) {
				requests += calls;
			}
			else {
				inside += calls;
			}
		}
		return new long[] { requests, inside, scriptMicros };
	}

	/**
	 * The calls without the benchmark's own (INFO and every CONFIG).
	 * @return calls per command, sorted by name
	 */
	Map<String, Long> withoutOwn() {
		Map<String, Long> calls = new TreeMap<>(this.calls);
		calls.keySet().removeIf((command) -> command.equals("info") || command.startsWith("config"));
		return calls;
	}

	/**
	 * Every command Redis ran but the benchmark's own: the client's requests and the commands inside scripts.
	 * @return calls
	 */
	long total() {
		return withoutOwn().values().stream().mapToLong(Long::longValue).sum();
	}

	/**
	 * The script calls (EVAL, EVALSHA, FCALL) among {@link #total()}.
	 * @return calls
	 */
	long scripts() {
		return withoutOwn().entrySet()
			.stream()
			.filter((entry) -> entry.getKey().startsWith("eval") || entry.getKey().startsWith("fcall"))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

}
