// Replays the canned sample streams (streams.txt on stdin) through the C++
// stop rule of method.h and prints one verdict per stream, in the format of
// expected.txt. Build and check: see README.md here (scripts/test does it).
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "../method.h"

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty() || line[0] == '#') continue;
        size_t colon = line.find(" : ");
        std::istringstream head(line.substr(0, colon));
        std::string name;
        method::Policy p;
        head >> name >> p.min_samples >> p.target_noise >> p.min_gpu_s >> p.timeout_s >>
            p.max_wall_s >> p.max_samples;
        std::istringstream body(line.substr(colon + 3));
        std::vector<double> times, history;
        std::string sample;
        int verdict = -1;
        while (body >> sample) {
            size_t at = sample.find('@');
            double t = std::stod(sample.substr(0, at));
            double elapsed = std::stod(sample.substr(at + 1));
            times.push_back(t);
            history.push_back(method::rel_stdev(times));
            double gpu_s = 0.0;
            for (double x : times) gpu_s += x;
            gpu_s /= 1e6;
            verdict = method::stop_after(p, history, gpu_s, elapsed);
            if (verdict >= 0) break;
        }
        if (verdict < 0) {
            std::printf("%s never\n", name.c_str());
        } else {
            std::printf("%s stop %zu %s median %.3f\n", name.c_str(), times.size(),
                        verdict == 1 ? "noisy" : "quiet", method::median(times));
        }
    }
    return 0;
}
