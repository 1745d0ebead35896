// placeholder: the histogram is being written
#pragma once
