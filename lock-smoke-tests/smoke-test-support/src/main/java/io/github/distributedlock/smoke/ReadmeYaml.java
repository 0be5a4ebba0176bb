package io.github.distributedlock.smoke;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The properties of the README's Quick start, verbatim: the {@code ```yaml} block after the line
 * {@value #MARKER} in the README.md at the root of the project, written to a file that the applications read with
 * {@code --spring.config.additional-location}. So a key the README shows and an application refuses fails a smoke
 * test. Thread-safe.
 */
public final class ReadmeYaml {

	/** The HTML comment (invisible on GitHub) right before the block. */
	public static final String MARKER = "<!-- smoke-tests: quick-start-yaml -->";

	/** Where {@link #write()} writes the block when {@code smoke.logs} is not set, relative to the module. */
	public static final String FILE = "target/smoke-logs/readme-quick-start.yml";

	private ReadmeYaml() {
	}

	/**
	 * Returns the lines of the block, without its fences.
	 * @return the YAML lines as the README shows them
	 * @throws IllegalStateException if no README.md is found above the working directory, or it has no marked
	 * {@code ```yaml} block
	 */
	public static List<String> block() {
		Path readme = readme();
		List<String> lines;
		try {
			lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		int marker = lines.indexOf(MARKER);
		if (marker < 0 || marker + 1 >= lines.size() || !lines.get(marker + 1).equals("```yaml")) {
			throw new IllegalStateException(readme + " has no line '" + MARKER + "' followed by a ```yaml block");
		}
		List<String> block = new ArrayList<>();
		for (int i = marker + 2; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
			block.add(lines.get(i));
		}
		return block;
	}

	/**
	 * Returns the keys the block sets, dotted as in a properties file.
	 * @return for instance {@code distributed-lock.lease}, in the block's order
	 */
	public static List<String> keys() {
		List<String> keys = new ArrayList<>();
		List<String> parents = new ArrayList<>();
		List<Integer> indents = new ArrayList<>();
		for (String line : block()) {
			if (line.isBlank() || line.trim().startsWith("#")) {
				continue;
			}
			int indent = line.length() - line.stripLeading().length();
			while (!indents.isEmpty() && indents.get(indents.size() - 1) >= indent) {
				indents.remove(indents.size() - 1);
				parents.remove(parents.size() - 1);
			}
			String key = line.trim().substring(0, line.trim().indexOf(':'));
			String value = line.trim().substring(line.trim().indexOf(':') + 1).trim();
			if (value.isEmpty()) {
				parents.add(key);
				indents.add(indent);
			}
			else {
				keys.add(String.join(".", parents) + (parents.isEmpty() ? "" : ".") + key);
			}
		}
		return keys;
	}

	/**
	 * Writes the block to {@value #FILE}, under the system property {@code smoke.logs} when set.
	 * @return the file written
	 * @throws UncheckedIOException if it cannot be written
	 */
	public static Path write() {
		Path file = ((System.getProperty("smoke.logs") != null)
				? Path.of(System.getProperty("smoke.logs"), "readme-quick-start.yml") : Path.of(FILE)).toAbsolutePath();
		try {
			Files.createDirectories(file.getParent());
			Files.write(file, block(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return file;
	}

	/**
	 * Writes the block (see {@link #write()}) and returns the application argument that reads it.
	 * @return {@code --spring.config.additional-location=file:<that file>}
	 */
	public static String argument() {
		return "--spring.config.additional-location=file:" + write();
	}

	/** The README.md of the project: in the nearest directory above the working directory that has one. */
	private static Path readme() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("lock-smoke-tests"))) {
				return dir.resolve("README.md");
			}
		}
		throw new IllegalStateException("No README.md next to lock-smoke-tests above " + Path.of("").toAbsolutePath());
	}

}
