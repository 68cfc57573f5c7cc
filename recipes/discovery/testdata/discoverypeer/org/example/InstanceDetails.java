package org.example;

/** The payload class of the goldens: a Java bean, as Curator's users write them. */
public class InstanceDetails {
    private String description;
    private int weight;

    public InstanceDetails() {}

    public String getDescription() { return description; }
    public void setDescription(String description) { this.description = description; }
    public int getWeight() { return weight; }
    public void setWeight(int weight) { this.weight = weight; }
}
