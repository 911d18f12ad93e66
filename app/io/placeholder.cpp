// Placeholder until the file formats land.
