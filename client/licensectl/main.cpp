// licensectl: the license client for CI pipelines and scripts (spec section 11).
#include "licensectl.h"

int main(int argc, char** argv) {
  return licensed::client::run_licensectl(argc, argv);
}
