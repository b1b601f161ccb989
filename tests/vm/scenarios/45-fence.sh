#!/bin/bash
# Bounds and lifetimes (stage-fence.sh): the write fence's owner and drain
# (io_uring), COMMIT of buffered writes, EFBIG, bounded holds, pool stop
# against racing openers, the growable stage, libhypercache's C API; on three
# fresh 128 MiB drives, with
# init_on_free=1 so that a read of freed memory shows.
vm_images 3 128
vm_boot fence --timeout 500 --kargs init_on_free=1
