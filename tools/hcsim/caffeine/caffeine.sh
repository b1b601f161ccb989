# Sourced by scripts/bench-caffeine.sh and scripts/bench-traces.sh: the
# replay of hcsim's traces through Caffeine (Debian's libcaffeine-java and
# CaffeineSim.java beside this file).
#
# caffeine_build SCRIPT DIR [HINT]: check for the jar and javac (SCRIPT
# names the caller in the error, HINT is appended to it), compile
# CaffeineSim into DIR/classes; exit 1 if either is missing.
# caffeine_sim ARGS...: run CaffeineSim with ARGS (see CaffeineSim.java).
caffeine_jar=${CAFFEINE_JAR:-/usr/share/java/caffeine.jar}

caffeine_build() {
	if [ ! -r "$caffeine_jar" ] || ! command -v javac >/dev/null; then
		echo "$1: needs $caffeine_jar (libcaffeine-java) and javac (openjdk-17-jdk-headless): scripts/deps.sh${3:+$3}" >&2
		exit 1
	fi
	caffeine_classes=$2/classes
	mkdir -p "$caffeine_classes"
	javac -cp "$caffeine_jar" -d "$caffeine_classes" \
		"$(dirname "${BASH_SOURCE[0]}")/CaffeineSim.java"
}

caffeine_sim() {
	java -cp "$caffeine_jar:$caffeine_classes" CaffeineSim "$@"
}
