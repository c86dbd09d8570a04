#!/bin/sh
# netns.sh COMMAND...: COMMAND in a network namespace of its own with the loopback up: its own
# 127.0.0.1, so its own port 6770 (the metrics server's default) and its own ephemeral ports,
# apart from the other pytest workers and from whatever else runs on the machine. Each xdist
# worker is started through it (Makefile, PYTEST_XDIST); needs root (CI's and the dev machines'
# case); `netns.sh true` tells whether it works here.
exec unshare --net -- sh -c 'ip link set lo up && exec "$@"' netns.sh "$@"
