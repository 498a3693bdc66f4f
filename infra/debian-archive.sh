# Sourced by the scripts that fetch from Debian (setup-services.sh, scripts/test-deploy.sh).
# The Debian archive this machine already uses (a mirror, a proxy), from its own apt sources:
# deb822 *.sources first, then one-line sources.list entries; the main archive, not security.
# deb.debian.org only when none is configured.
debian_archive_uri() {
  local uri
  uri=$(awk '
    /^[[:space:]]*$/ { if (uris != "" && suites !~ /-security/) { print uris; exit } uris = ""; suites = ""; next }
    /^URIs:/ { uris = $2 }
    /^Suites:/ { suites = $0 }
    END { if (uris != "" && suites !~ /-security/) print uris }
  ' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" || $1 == "deb-src" {
             i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
             if ($(i + 1) !~ /-security/) { print $i; exit }
           }' /etc/apt/sources.list)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

# The machine's security archive (a -security suite in its apt sources), or nothing when it has
# none: images built from Debian's packages take the same patched versions the machine runs.
debian_security_uri() {
  local uri
  uri=$(awk '
    /^[[:space:]]*$/ { if (uris != "" && suites ~ /-security/) { print uris; exit } uris = ""; suites = ""; next }
    /^URIs:/ { uris = $2 }
    /^Suites:/ { suites = $0 }
    END { if (uris != "" && suites ~ /-security/) print uris }
  ' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" {
             i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
             if ($(i + 1) ~ /-security/) { print $i; exit }
           }' /etc/apt/sources.list)
  fi
  echo "$uri"
}
