// licensectl: the license client for CI pipelines and scripts (docs/protocol.md §16).
#include "licensectl.h"

int main(int argc, char** argv) {
  return licensed::client::run_licensectl(argc, argv);
}
