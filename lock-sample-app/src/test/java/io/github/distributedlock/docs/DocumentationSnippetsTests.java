package io.github.distributedlock.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java snippet of the documentation (README.md and docs/*.md) compiles: each {@code ```java} block must
 * follow a marker {@code <!-- snippet: Class#tag -->} and equal the lines between {@code // tag::tag[]} and
 * {@code // end::tag[]} of {@code Class.java} in this package, which the build compiles.
 */
class DocumentationSnippetsTests {

	private static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\w+)#([\\w-]+) -->");

	private static final Path PROJECT = Path.of("..").toAbsolutePath().normalize();

	private static final Path SNIPPETS = Path.of("src/test/java/io/github/distributedlock/docs");

	@Test
	void everyJavaBlockOfTheDocumentationIsACompiledSnippet() throws IOException {
		List<String> problems = new ArrayList<>();
		int checked = 0;
		for (Path document : documents()) {
			List<String> lines = Files.readAllLines(document);
			for (int i = 0; i < lines.size(); i++) {
				if (!lines.get(i).startsWith("```java")) {
					continue;
				}
				String where = PROJECT.relativize(document) + ":" + (i + 1);
				List<String> block = new ArrayList<>();
				int j = i + 1;
				while (j < lines.size() && !lines.get(j).startsWith("```")) {
					block.add(lines.get(j).stripTrailing());
					j++;
				}
				Matcher marker = (i > 0) ? MARKER.matcher(lines.get(i - 1).trim()) : null;
				if (marker == null || !marker.matches()) {
					problems.add(where + ": a ```java block without a '<!-- snippet: Class#tag -->' line before it");
				}
				else {
					List<String> snippet = snippet(marker.group(1), marker.group(2));
					if (snippet == null) {
						problems.add(where + ": no '// tag::" + marker.group(2) + "[]' in " + marker.group(1) + ".java");
					}
					else if (!snippet.equals(block)) {
						problems.add(where + ": differs from " + marker.group(1) + "#" + marker.group(2) + ":\n"
								+ String.join("\n", snippet));
					}
					checked++;
				}
				i = j;
			}
		}
		assertThat(problems).isEmpty();
		assertThat(checked).isPositive();
	}

	private static List<Path> documents() throws IOException {
		List<Path> documents = new ArrayList<>();
		documents.add(PROJECT.resolve("README.md"));
		Path docs = PROJECT.resolve("docs");
		if (Files.isDirectory(docs)) {
			try (Stream<Path> pages = Files.list(docs)) {
				pages.filter((page) -> page.toString().endsWith(".md")).sorted().forEach(documents::add);
			}
		}
		return documents;
	}

	/** The tagged lines of a snippet class, without their common indentation; {@code null} if not tagged. */
	private static List<String> snippet(String className, String tag) throws IOException {
		Path source = SNIPPETS.resolve(className + ".java");
		if (!Files.exists(source)) {
			return null;
		}
		List<String> lines = Files.readAllLines(source);
		int start = -1;
		for (int i = 0; i < lines.size(); i++) {
			String line = lines.get(i).trim();
			if (line.equals("// tag::" + tag + "[]")) {
				start = i + 1;
			}
			else if (line.equals("// end::" + tag + "[]") && start >= 0) {
				List<String> tagged = lines.subList(start, i).stream().map(DocumentationSnippetsTests::spaces).toList();
				int indent = tagged.stream().filter((l) -> !l.isBlank()).mapToInt(DocumentationSnippetsTests::indent)
					.min().orElse(0);
				return tagged.stream().map((l) -> l.isBlank() ? "" : l.substring(indent).stripTrailing()).toList();
			}
		}
		return null;
	}

	/** The line with its leading tabs as four spaces each, as the documentation shows code. */
	private static String spaces(String line) {
		int tabs = 0;
		while (tabs < line.length() && line.charAt(tabs) == '\t') {
			tabs++;
		}
		return "    ".repeat(tabs) + line.substring(tabs);
	}

	private static int indent(String line) {
		int n = 0;
		while (n < line.length() && (line.charAt(n) == ' ' || line.charAt(n) == '\t')) {
			n++;
		}
		return n;
	}

}
