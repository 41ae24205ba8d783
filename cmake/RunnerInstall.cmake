# Installed layout: bin/runner, lib/runner/plugins/*.so, include/runner/*.hpp,
# lib/cmake/Runner/ (find_package(Runner) gives Runner::sdk and runner_add_plugin()).
