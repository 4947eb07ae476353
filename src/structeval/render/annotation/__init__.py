"""What a drawing says about the structure beside it: dimension chains, exam marks,
levels, slopes, point letters, label placement, legend and notes."""
