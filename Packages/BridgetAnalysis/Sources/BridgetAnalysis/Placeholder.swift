public enum PlaceholderAnalysis {}
