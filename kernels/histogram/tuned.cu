/*+++
problem = "histogram_u8"
sizes = ["2^20", "2^24", "2^28"]
# lane_offsets.cu with one choice of what the sweeps vary (to be set from
# their figures once measured): 32 copies of the bins, six blocks of 256
# threads per SM at most, two uint4 loads per thread per trip.
[[launch]]
kernel = "hist_lane_offsets"
grid = "min(ceil_div(n, 8192), sms * 6)"
block = 256
args = ["x", "bins", "n"]
+++*/

// lane_offsets.cu's kernel with two loads in flight per thread.
#define COPIES 32
#define LOADS 2
#include "lane_offsets.cu"
