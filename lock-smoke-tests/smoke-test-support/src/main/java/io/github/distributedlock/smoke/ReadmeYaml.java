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
 * test. Another block of the README is found the same way, by its own marker (the Redlock one:
 * {@value #REDLOCK_MARKER}), and read on top of the Quick start's with {@code --spring.config.import}.
 * Thread-safe.
 */
public final class ReadmeYaml {

	/** The HTML comment (invisible on GitHub) right before the Quick-start block. */
	public static final String MARKER = "<!-- smoke-tests: quick-start-yaml -->";

	/** The HTML comment right before the README's Redlock block ({@code distributed-lock.store=redlock}). */
	public static final String REDLOCK_MARKER = "<!-- smoke-tests: redlock-yaml -->";

	/** Where {@link #write()} writes the block when {@code smoke.logs} is not set, relative to the module. */
	public static final String FILE = "target/smoke-logs/readme-quick-start.yml";

	private ReadmeYaml() {
	}

	/**
	 * Returns the lines of the Quick-start block, without its fences.
	 * @return the YAML lines as the README shows them
	 * @throws IllegalStateException if no README.md is found above the working directory, or it has no marked
	 * {@code ```yaml} block
	 */
	public static List<String> block() {
		return block(MARKER);
	}

	/**
	 * Returns the lines of the {@code ```yaml} block right after a marker line, without its fences.
	 * @param marker the whole line before the block, such as {@link #REDLOCK_MARKER}
	 * @return the YAML lines as the README shows them
	 * @throws IllegalStateException if no README.md is found above the working directory, or it has no
	 * {@code ```yaml} block after that marker
	 */
	public static List<String> block(String marker) {
		Path readme = readme();
		List<String> lines;
		try {
			lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		int at = lines.indexOf(marker);
		if (at < 0 || at + 1 >= lines.size() || !lines.get(at + 1).equals("```yaml")) {
			throw new IllegalStateException(readme + " has no line '" + marker + "' followed by a ```yaml block");
		}
		List<String> block = new ArrayList<>();
		for (int i = at + 2; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
			block.add(lines.get(i));
		}
		return block;
	}

	/**
	 * Returns the keys the Quick-start block sets, dotted as in a properties file.
	 * @return for instance {@code distributed-lock.lease}, in the block's order
	 */
	public static List<String> keys() {
		return keys(MARKER);
	}

	/**
	 * Returns the keys a marked block sets, dotted as in a properties file; a list is one key.
	 * @param marker the whole line before the block
	 * @return for instance {@code distributed-lock.redlock.nodes}, in the block's order
	 * @throws IllegalStateException as {@link #block(String)} does
	 */
	public static List<String> keys(String marker) {
		List<String> keys = new ArrayList<>();
		List<String> parents = new ArrayList<>();
		List<Integer> indents = new ArrayList<>();
		for (String line : block(marker)) {
			if (line.isBlank() || line.trim().startsWith("#")) {
				continue;
			}
			if (line.trim().startsWith("- ")) {
				// an item of the list its parent key holds: that key once, not a key per item
				String list = String.join(".", parents);
				if (!parents.isEmpty() && !keys.contains(list)) {
					keys.add(list);
				}
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
		return write(MARKER, Path.of(FILE).getFileName().toString());
	}

	/**
	 * Writes a marked block to a file of {@code smoke.logs} (or of {@code target/smoke-logs} when not set).
	 * @param marker the whole line before the block
	 * @param fileName the file's name, such as {@code readme-redlock.yml}
	 * @return the file written
	 * @throws UncheckedIOException if it cannot be written
	 * @throws IllegalStateException as {@link #block(String)} does
	 */
	public static Path write(String marker, String fileName) {
		Path file = Path.of(System.getProperty("smoke.logs", Path.of(FILE).getParent().toString()), fileName)
			.toAbsolutePath();
		try {
			Files.createDirectories(file.getParent());
			Files.write(file, block(marker), StandardCharsets.UTF_8);
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

	/**
	 * Writes a marked block (see {@link #write(String, String)}) and returns the application argument that imports
	 * it: on top of the Quick start's {@link #argument()}, as a second file of the application's configuration.
	 * @param marker the whole line before the block
	 * @param fileName the file's name
	 * @return {@code --spring.config.import=file:<that file>}
	 */
	public static String importArgument(String marker, String fileName) {
		return "--spring.config.import=file:" + write(marker, fileName);
	}

	/** The README.md of the project. */
	private static Path readme() {
		return ProjectFiles.file("README.md");
	}

}
