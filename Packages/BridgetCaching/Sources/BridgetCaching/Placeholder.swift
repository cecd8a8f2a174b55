public enum PlaceholderCaching {}
