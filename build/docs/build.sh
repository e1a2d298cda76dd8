# ./weft docs: builds weft's documentation into target/docs/index.html, one static site that opens
# from the file system with no network:
# - the Javadoc of every library module with Java sources (the -javadoc.jar the release builds),
# - the KDoc of weft-kotlin (Dokka, run by name: dokka-maven-plugin in weft-kotlin's POM),
# - the README, the module and example READMEs, doc/ (guides, references, decisions), the
#   CHANGELOG and the Clojure API, rendered by build/docs/site.clj (commonmark-java).
# Sourced by the launcher (cmd_docs) with its functions: maven_logged, library_modules,
# library_classpath, weft_version, say, die.
docs_out="$ROOT/target/docs"
docs_tools="$ROOT/target/docs-tools"
docs_index="$ROOT/target/docs-api.tsv"
commonmark_version=0.27.1
docs_version=$(weft_version)
docs_modules=$(library_modules | paste -sd, -)

say "docs: building every library module with its Javadoc (installed, so the Clojure API is read from what was just built)"
maven_logged -q install -DskipTests -Dweft.publish -pl "$docs_modules" -am || die "docs: the build failed (see above)"

rm -rf "$docs_out"
mkdir -p "$docs_out/api/java" "$docs_out/api/kotlin"
: > "$docs_index"
for m in $(library_modules); do
  jar="$ROOT/$m/target/$m-$docs_version-javadoc.jar"
  # A module without Java sources has a Javadoc jar that only points at its docstrings or KDoc:
  # the site renders those itself.
  [ -d "$ROOT/$m/src/main/java" ] || continue
  [ -f "$jar" ] || die "docs: $m has Java sources but no Javadoc jar ($jar)"
  mkdir -p "$docs_out/api/java/$m"
  (cd "$docs_out/api/java/$m" && "$JAVA_HOME/bin/jar" xf "$jar")
  rm -rf "$docs_out/api/java/$m/META-INF"
  printf 'java\t%s\tapi/java/%s\n' "$m" "$m" >> "$docs_index"
done

say "docs: KDoc of weft-kotlin (Dokka)"
maven_logged -q -pl weft-kotlin org.jetbrains.dokka:dokka-maven-plugin:2.2.0:dokka || die "docs: Dokka failed (see above)"
cp -r "$ROOT/weft-kotlin/target/dokka" "$docs_out/api/kotlin/weft-kotlin"
printf 'kotlin\tweft-kotlin\tapi/kotlin/weft-kotlin\n' >> "$docs_index"

# commonmark-java and its table and heading-anchor extensions, copied once into target/docs-tools.
mkdir -p "$docs_tools"
for a in commonmark commonmark-ext-gfm-tables commonmark-ext-heading-anchor; do
  [ -f "$docs_tools/$a-$commonmark_version.jar" ] && continue
  maven_logged -q -N dependency:copy -Dartifact="org.commonmark:$a:$commonmark_version" -DoutputDirectory="$docs_tools" \
    || die "docs: could not fetch org.commonmark:$a:$commonmark_version (see above)"
done

say "docs: rendering the pages and the Clojure API"
docs_cp="$(library_classpath):$docs_tools/commonmark-$commonmark_version.jar:$docs_tools/commonmark-ext-gfm-tables-$commonmark_version.jar:$docs_tools/commonmark-ext-heading-anchor-$commonmark_version.jar"
"$JAVA_HOME/bin/java" -cp "$docs_cp" clojure.main "$ROOT/build/docs/site.clj" "$ROOT" "$docs_out" "$docs_index" \
  || die "docs: rendering failed (see above)"
echo "weft docs: open $docs_out/index.html"
