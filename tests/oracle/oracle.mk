# The kernel's BPF selftest suites as the oracle, token parity, config
# matrix: see tests/oracle/README.md. Included by the top-level Makefile.
.PHONY: oracle-baseline oracle token-parity config-matrix

# Unpatched tree: kernel, selftests, VM run -> tests/oracle/baseline/*.txt
oracle-baseline: tree
	@$(TOP)/tests/oracle/oracle.sh baseline

# Patched tree (build/linux's HEAD): the same, compared test by test with
# the baseline; ends with `N passed, N failed`.
oracle: tree
	@$(TOP)/tests/oracle/oracle.sh check

# test_verifier as root and as nobody through BPF tokens, on build/kobj.
token-parity: kernel bpftool
	@$(TOP)/tests/oracle/oracle.sh parity

# The series in several configurations, warnings against the baseline.
config-matrix: tree
	@$(TOP)/tests/oracle/config-matrix.sh $(CONFIGS)
