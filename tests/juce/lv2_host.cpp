// The project's LV2 host for the JUCE example's tests, on Debian's liblilv (the library
// Ardour hosts LV2 plugins with). lv2apply cannot load JUCE 7 plugins (they always
// declare atom ports), so this host connects every port itself: audio in and out,
// control ports at their defaults (or --gain for the "gain" port), atom sequences empty
// in and with room out. It gives the features JUCE requires (urid:map and unmap,
// options with the block lengths, bufSize:boundedBlockLength).
//
//   lv2_host BUNDLE_DIR [--instances N] [--run-ms MS] [--gain G] [--free-at-ms MS]
//
// It instantiates N instances in one process, activates them and runs blocks of 256
// frames in real time for --run-ms, checks every output sample against input x gain,
// then frees them (at --free-at-ms when given) and prints, on stdout:
//   instantiated at=<monotonic ms> instances=N
//   audio: blocks=B exact=E dry=D silent=S other=O
//   freed: ms=<time lilv_instance_free took for all instances>
// The plugin's own trace (LICENSED_JUCE_TRACE=1) goes to stderr.
#include <lilv/lilv.h>
#include <lv2/atom/atom.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/options/options.h>
#include <lv2/urid/urid.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr uint32_t kBlock = 256;
constexpr double kRate = 48000.0;
constexpr size_t kAtomCapacity = 8192;

double monotonic_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1000.0 + static_cast<double>(t.tv_nsec) / 1e6;
}

// urid:map and urid:unmap over one table; plugins may call them from any thread.
struct Urids {
  std::mutex mu;
  std::map<std::string, LV2_URID> ids;
  std::vector<std::string> uris{""};

  static LV2_URID map(LV2_URID_Map_Handle h, const char* uri) {
    auto* self = static_cast<Urids*>(h);
    std::lock_guard<std::mutex> lock(self->mu);
    const auto it = self->ids.find(uri);
    if (it != self->ids.end()) return it->second;
    self->uris.emplace_back(uri);
    const auto id = static_cast<LV2_URID>(self->uris.size() - 1);
    self->ids.emplace(uri, id);
    return id;
  }
  static const char* unmap(LV2_URID_Unmap_Handle h, LV2_URID id) {
    auto* self = static_cast<Urids*>(h);
    std::lock_guard<std::mutex> lock(self->mu);
    return id < self->uris.size() ? self->uris[id].c_str() : nullptr;
  }
};

// One instance's buffers, connected to its ports.
struct Instance {
  LilvInstance* lilv = nullptr;
  std::vector<std::vector<float>> audio_in, audio_out;
  std::vector<float> controls;
  std::vector<std::vector<uint8_t>> atoms_in, atoms_out;
};

struct Args {
  std::string bundle;
  int instances = 1;
  int run_ms = 1000;
  float gain = 0.5F;
  int free_at_ms = -1;
};

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 2) {
    std::fprintf(
        stderr,
        "usage: lv2_host BUNDLE_DIR [--instances N] [--run-ms MS] [--gain G] [--free-at-ms MS]\n");
    std::exit(2);
  }
  a.bundle = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--instances")
      a.instances = std::atoi(argv[i + 1]);
    else if (flag == "--run-ms")
      a.run_ms = std::atoi(argv[i + 1]);
    else if (flag == "--gain")
      a.gain = static_cast<float>(std::atof(argv[i + 1]));
    else if (flag == "--free-at-ms")
      a.free_at_ms = std::atoi(argv[i + 1]);
  }
  return a;
}

float input_sample(uint64_t n, size_t channel) {
  // Exact in float, and so is every product with 0.5.
  return static_cast<float>(static_cast<int>((n * 7 + channel * 13) % 255) - 127) / 128.0F;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  LilvWorld* world = lilv_world_new();
  std::string dir = args.bundle;
  if (dir.empty() || dir.back() != '/') dir += '/';
  LilvNode* bundle = lilv_new_file_uri(world, nullptr, dir.c_str());
  lilv_world_load_bundle(world, bundle);
  const LilvPlugins* plugins = lilv_world_get_all_plugins(world);
  const LilvPlugin* plugin = nullptr;
  LILV_FOREACH(plugins, it, plugins) {
    const LilvPlugin* p = lilv_plugins_get(plugins, it);
    if (lilv_node_equals(lilv_plugin_get_bundle_uri(p), bundle)) plugin = p;
  }
  if (plugin == nullptr) {
    std::fprintf(stderr, "lv2_host: no plugin in %s\n", dir.c_str());
    return 1;
  }

  Urids urids;
  LV2_URID_Map map{&urids, &Urids::map};
  LV2_URID_Unmap unmap{&urids, &Urids::unmap};
  const auto block = static_cast<int32_t>(kBlock);
  const auto sequence_size = static_cast<int32_t>(kAtomCapacity);
  const LV2_URID atom_int = Urids::map(&urids, LV2_ATOM__Int);
  const LV2_Options_Option options[] = {
      {LV2_OPTIONS_INSTANCE, 0, Urids::map(&urids, LV2_BUF_SIZE__maxBlockLength), sizeof(int32_t),
       atom_int, &block},
      {LV2_OPTIONS_INSTANCE, 0, Urids::map(&urids, LV2_BUF_SIZE__minBlockLength), sizeof(int32_t),
       atom_int, &block},
      {LV2_OPTIONS_INSTANCE, 0, Urids::map(&urids, LV2_BUF_SIZE__sequenceSize), sizeof(int32_t),
       atom_int, &sequence_size},
      {LV2_OPTIONS_INSTANCE, 0, 0, 0, 0, nullptr}};
  const LV2_Feature map_feature{LV2_URID__map, &map};
  const LV2_Feature unmap_feature{LV2_URID__unmap, &unmap};
  const LV2_Feature options_feature{LV2_OPTIONS__options, const_cast<LV2_Options_Option*>(options)};
  const LV2_Feature bounded{LV2_BUF_SIZE__boundedBlockLength, nullptr};
  const LV2_Feature* features[] = {&map_feature, &unmap_feature, &options_feature, &bounded,
                                   nullptr};

  LilvNode* audio_class = lilv_new_uri(world, LV2_CORE__AudioPort);
  LilvNode* control_class = lilv_new_uri(world, LV2_CORE__ControlPort);
  LilvNode* atom_class = lilv_new_uri(world, LV2_ATOM__AtomPort);
  LilvNode* input_class = lilv_new_uri(world, LV2_CORE__InputPort);
  const LV2_URID sequence_type = Urids::map(&urids, LV2_ATOM__Sequence);
  const LV2_URID chunk_type = Urids::map(&urids, LV2_ATOM__Chunk);

  const uint32_t ports = lilv_plugin_get_num_ports(plugin);
  std::vector<float> minimum(ports), maximum(ports), defaults(ports);
  lilv_plugin_get_port_ranges_float(plugin, minimum.data(), maximum.data(), defaults.data());

  const double instantiated_at = monotonic_ms();
  std::vector<std::unique_ptr<Instance>> instances;
  for (int i = 0; i < args.instances; ++i) {
    auto inst = std::make_unique<Instance>();
    inst->lilv = lilv_plugin_instantiate(plugin, kRate, features);
    if (inst->lilv == nullptr) {
      std::fprintf(stderr, "lv2_host: instantiate failed\n");
      return 1;
    }
    inst->controls.resize(ports, 0.0F);
    for (uint32_t p = 0; p < ports; ++p) {
      const LilvPort* port = lilv_plugin_get_port_by_index(plugin, p);
      const bool input = lilv_port_is_a(plugin, port, input_class);
      if (lilv_port_is_a(plugin, port, audio_class)) {
        auto& list = input ? inst->audio_in : inst->audio_out;
        list.emplace_back(kBlock, 0.0F);
        lilv_instance_connect_port(inst->lilv, p, list.back().data());
      } else if (lilv_port_is_a(plugin, port, control_class)) {
        const char* symbol = lilv_node_as_string(lilv_port_get_symbol(plugin, port));
        float value = std::isnan(defaults[p]) ? 0.0F : defaults[p];
        if (input && std::strcmp(symbol, "gain") == 0) value = args.gain;
        inst->controls[p] = value;
        lilv_instance_connect_port(inst->lilv, p, &inst->controls[p]);
      } else if (lilv_port_is_a(plugin, port, atom_class)) {
        auto& list = input ? inst->atoms_in : inst->atoms_out;
        list.emplace_back(kAtomCapacity, 0);
        lilv_instance_connect_port(inst->lilv, p, list.back().data());
      } else {
        lilv_instance_connect_port(inst->lilv, p, nullptr);
      }
    }
    lilv_instance_activate(inst->lilv);
    instances.push_back(std::move(inst));
  }
  std::printf("instantiated at=%.3f instances=%d\n", instantiated_at, args.instances);
  std::fflush(stdout);

  long blocks = 0, exact = 0, dry = 0, silent = 0, other = 0;
  uint64_t frame = 0;
  const double block_ms = 1000.0 * kBlock / kRate;
  const int stop_ms = args.free_at_ms >= 0 ? args.free_at_ms : args.run_ms;
  while (monotonic_ms() - instantiated_at < stop_ms) {
    for (auto& inst : instances) {
      for (size_t c = 0; c < inst->audio_in.size(); ++c) {
        for (uint32_t n = 0; n < kBlock; ++n) inst->audio_in[c][n] = input_sample(frame + n, c);
      }
      for (auto& a : inst->atoms_in) {
        auto* seq = reinterpret_cast<LV2_Atom_Sequence*>(a.data());
        seq->atom.size = sizeof(LV2_Atom_Sequence_Body);
        seq->atom.type = sequence_type;
        seq->body.unit = 0;
        seq->body.pad = 0;
      }
      for (auto& a : inst->atoms_out) {
        auto* atom = reinterpret_cast<LV2_Atom*>(a.data());
        atom->size = static_cast<uint32_t>(kAtomCapacity - sizeof(LV2_Atom));
        atom->type = chunk_type;
      }
      lilv_instance_run(inst->lilv, kBlock);
      // Classify the block: every sample input x gain, unchanged, silent, or other.
      bool all_exact = true, all_dry = true, all_silent = true;
      for (size_t c = 0; c < inst->audio_out.size(); ++c) {
        for (uint32_t n = 0; n < kBlock; ++n) {
          const float in = input_sample(frame + n, c);
          const float out = inst->audio_out[c][n];
          all_exact = all_exact && out == in * args.gain;
          all_dry = all_dry && out == in;
          all_silent = all_silent && out == 0.0F;
        }
      }
      ++blocks;
      if (all_exact)
        ++exact;
      else if (all_dry)
        ++dry;
      else if (all_silent)
        ++silent;
      else
        ++other;
    }
    frame += kBlock;
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int>(block_ms * 1000)));
  }
  std::printf("audio: blocks=%ld exact=%ld dry=%ld silent=%ld other=%ld\n", blocks, exact, dry,
              silent, other);
  std::fflush(stdout);

  const double freeing = monotonic_ms();
  for (auto& inst : instances) {
    lilv_instance_deactivate(inst->lilv);
    lilv_instance_free(inst->lilv);
  }
  std::printf("freed: ms=%.1f\n", monotonic_ms() - freeing);
  std::fflush(stdout);
  for (LilvNode* n : {audio_class, control_class, atom_class, input_class, bundle})
    lilv_node_free(n);
  lilv_world_free(world);
  return 0;
}
